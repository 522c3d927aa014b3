import { randomUUID } from 'node:crypto';
import type { AgentInterface } from '../../generated/a2a/1.0/types.js';
import type { Check, CheckContext, FindingInput } from '../core/check.js';
import type { Exchange } from '../core/exchange.js';
import type { RpcExchange, StreamExchange } from '../core/transport.js';

/** The test-directive convention (docs/test-directives.md), as any client would know it. */
export const TEST_DIRECTIVES_EXTENSION = 'https://a2a-hub.dev/extensions/test-directives/v1';
const TEST_DIRECTIVE_KEY = 'a2a-hub/test';
const WELL_KNOWN = '/.well-known/agent-card.json';
const NO_CARD = 'no agent card was found (a minimal one was assumed), so there is no card to check';
const PLACEHOLDER_SKILL = { id: 'placeholder', name: 'placeholder', description: 'placeholder', tags: ['placeholder'] };
const SECURITY_WRAPPERS = ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'];
/** Members only a 0.3 card has. */
const LEGACY_CARD_MEMBERS = ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard', 'security'];
/** Values that are free-form JSON (Struct, Value): their keys are not member names. */
const FREE_FORM = new Set(['metadata', 'params', 'header', 'data']);
/** Maps: their keys are names chosen by the agent, their values are messages again. */
const MAPS = new Set(['securitySchemes', 'schemes', 'scopes']);

// ---------------------------------------------------------------------------------------------
// Helpers shared with versioning.ts and security.ts.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A task id no agent has: every GetTask for it must be TaskNotFoundError. */
export function unknownTaskId(): string {
  return `conform-missing-${randomUUID()}`;
}

/** The ErrorInfo reason of a JSON-RPC error (`data`) or an HTTP+JSON google.rpc.Status (`details`). */
export function reasonOf(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  const list = Array.isArray(error['data']) ? error['data'] : Array.isArray(error['details']) ? error['details'] : [];
  const info = (list as unknown[]).find((detail) => isRecord(detail) && typeof detail['reason'] === 'string');
  return isRecord(info) ? (info['reason'] as string) : undefined;
}

/** What came back, in one line, for a finding's `observed`. */
export function observedOf(exchange: Exchange): string {
  if (exchange.status === 0) return `no response (${exchange.transportError ?? 'connection failed'})`;
  const json = exchange.json;
  if (isRecord(json) && isRecord(json['error'])) {
    const error = json['error'];
    const reason = reasonOf(error);
    const message = typeof error['message'] === 'string' ? error['message'] : JSON.stringify(error['message'] ?? '');
    return `HTTP ${exchange.status}, error ${JSON.stringify(error['code'])}${reason ? ` (${reason})` : ''}: ${message}`.slice(0, 400);
  }
  if (isRecord(json) && 'result' in json) return `HTTP ${exchange.status}, result ${JSON.stringify(json['result']).slice(0, 300)}`;
  return `HTTP ${exchange.status}: ${exchange.bodyText.slice(0, 300) || '(empty body)'}`;
}

/** The JSON-RPC error code of an answer, when it was one. */
export function errorCodeOf(exchange: Exchange): number | undefined {
  const json = exchange.json;
  if (!isRecord(json) || !isRecord(json['error'])) return undefined;
  const code = json['error']['code'];
  return typeof code === 'number' ? code : undefined;
}

/** A stream call answered with a plain JSON body, read like a call. */
export function rpcOf(exchange: StreamExchange): RpcExchange {
  const json = exchange.json;
  const error = isRecord(json) && isRecord(json['error']) ? (json['error'] as unknown as RpcExchange['error']) : undefined;
  return { ...exchange, id: undefined, ...(error === undefined ? {} : { error }), ...(isRecord(json) && 'result' in json ? { result: json['result'] } : {}) };
}

export function interfacesOf(context: CheckContext): AgentInterface[] {
  const list = (context.target.card as { supportedInterfaces?: unknown }).supportedInterfaces;
  return Array.isArray(list) ? list.filter((entry): entry is AgentInterface => isRecord(entry)) : [];
}

/** The interface the transport talks to. */
export function selectedInterface(context: CheckContext): AgentInterface | undefined {
  return interfacesOf(context).find((entry) => entry.url === context.transport.endpoint && entry.protocolBinding === context.transport.binding);
}

/** Params with the selected interface's tenant, which a client MUST copy into every request (spec §8.3.2). */
export function withTenant<T extends object>(context: CheckContext, params: T): T {
  const tenant = selectedInterface(context)?.tenant;
  return typeof tenant === 'string' && tenant !== '' ? { ...params, tenant } : params;
}

export function capabilityDeclared(context: CheckContext, name: 'streaming' | 'pushNotifications' | 'extendedAgentCard'): boolean {
  const capabilities = (context.target.card as { capabilities?: unknown }).capabilities;
  return isRecord(capabilities) && capabilities[name] === true;
}

export function declaredExtensions(context: CheckContext): { uri: string; required: boolean }[] {
  const capabilities = (context.target.card as { capabilities?: unknown }).capabilities;
  const list = isRecord(capabilities) && Array.isArray(capabilities['extensions']) ? (capabilities['extensions'] as unknown[]) : [];
  return list.flatMap((entry) => (isRecord(entry) && typeof entry['uri'] === 'string' && entry['uri'] !== '' ? [{ uri: entry['uri'], required: entry['required'] === true }] : []));
}

/** Evidence for findings about the card: the request that fetched it. */
export function cardEvidence(context: CheckContext): Pick<FindingInput, 'exchange'> {
  return context.target.cardExchange ? { exchange: context.target.cardExchange } : {};
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]' || /^\[::ffff:(127\.|7f)/.test(host);
}

/**
 * How a URL the agent publishes fares against the transport-security rules (spec §7.1):
 * relative or not http(s) fails, plain http to a host that is not loopback warns.
 */
export function classifyUrl(url: unknown): { verdict: 'pass' | 'warn' | 'fail'; reason: string } {
  if (typeof url !== 'string' || url === '') return { verdict: 'fail', reason: 'no URL' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { verdict: 'fail', reason: `${url} is not an absolute URL` };
  }
  if (parsed.protocol === 'https:') return { verdict: 'pass', reason: `${url} uses https` };
  if (parsed.protocol !== 'http:') return { verdict: 'fail', reason: `${url} is not an http(s) URL` };
  if (isLoopbackHost(parsed.hostname)) return { verdict: 'pass', reason: `${url} is plain http to a loopback host (fine for local testing)` };
  return { verdict: 'warn', reason: `${url} is plain http to ${parsed.hostname}, which is not loopback; production interfaces must use https` };
}

/** Missing members that CARD-003 names; also applied to extended cards (XCARD-004). */
export function cardStructureProblems(card: unknown): { path: string; problem: string }[] {
  const problems: { path: string; problem: string }[] = [];
  if (!isRecord(card)) return [{ path: '', problem: 'the card is not a JSON object' }];
  const nonEmptyString = (value: unknown): boolean => typeof value === 'string' && value !== '';
  const interfaces = Array.isArray(card['supportedInterfaces']) ? (card['supportedInterfaces'] as unknown[]) : [];
  interfaces.forEach((entry, index) => {
    for (const member of ['url', 'protocolBinding', 'protocolVersion']) {
      if (!isRecord(entry) || !nonEmptyString(entry[member])) problems.push({ path: `supportedInterfaces[${index}].${member}`, problem: `supportedInterfaces[${index}] has no ${member}` });
    }
  });
  const skills = Array.isArray(card['skills']) ? (card['skills'] as unknown[]) : [];
  skills.forEach((skill, index) => {
    for (const member of ['id', 'name', 'description']) {
      if (!isRecord(skill) || typeof skill[member] !== 'string' || (member === 'id' && skill[member] === '')) problems.push({ path: `skills[${index}].${member}`, problem: `skills[${index}] has no ${member}` });
    }
    const tags = isRecord(skill) ? skill['tags'] : undefined;
    if (!Array.isArray(tags) || tags.length === 0 || !tags.every((tag) => typeof tag === 'string')) problems.push({ path: `skills[${index}].tags`, problem: `skills[${index}].tags is not a non-empty array of strings` });
  });
  if ('provider' in card) {
    const provider = card['provider'];
    for (const member of ['url', 'organization']) {
      if (!isRecord(provider) || !nonEmptyString(provider[member])) problems.push({ path: `provider.${member}`, problem: `provider has no ${member}` });
    }
  }
  return problems;
}

/** 0.3-only shapes (CARD-007); also applied to extended cards. */
export function legacyCardProblems(card: unknown): { path: string; problem: string }[] {
  if (!isRecord(card)) return [];
  const problems = LEGACY_CARD_MEMBERS.filter((member) => member in card).map((member) => ({ path: member, problem: `the 0.3 member ${member} is present (${JSON.stringify(card[member]).slice(0, 80)})` }));
  const capabilities = card['capabilities'];
  if (isRecord(capabilities) && 'stateTransitionHistory' in capabilities) problems.push({ path: 'capabilities.stateTransitionHistory', problem: 'the 0.3 member capabilities.stateTransitionHistory is present' });
  const schemes = card['securitySchemes'];
  if (isRecord(schemes)) {
    for (const [name, scheme] of Object.entries(schemes)) {
      if (!isRecord(scheme)) {
        problems.push({ path: `securitySchemes.${name}`, problem: `securitySchemes.${name} is not an object` });
        continue;
      }
      if ('type' in scheme) problems.push({ path: `securitySchemes.${name}.type`, problem: `securitySchemes.${name} has the 0.3 discriminator type ${JSON.stringify(scheme['type'])}` });
      const wrappers = Object.keys(scheme).filter((key) => SECURITY_WRAPPERS.includes(key));
      if (wrappers.length !== 1) problems.push({ path: `securitySchemes.${name}`, problem: `securitySchemes.${name} holds ${wrappers.length} wrapper members (${wrappers.join(', ') || 'none'}), not exactly one` });
    }
  }
  return problems;
}

/** Member names that are not lowerCamelCase, and enums sent as numbers or 0.3 strings (CARD-006). */
export function namingProblems(value: unknown, path = ''): { path: string; problem: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => namingProblems(item, `${path}[${index}]`));
  if (!isRecord(value)) return [];
  const problems: { path: string; problem: string }[] = [];
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key.includes('_') || /^[A-Z]/.test(key)) problems.push({ path: at, problem: `member name ${key} is not lowerCamelCase` });
    if ((key === 'state' || key === 'role') && member !== undefined && (typeof member !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(member))) {
      problems.push({ path: at, problem: `${key} is ${JSON.stringify(member)}, not a proto enum name string` });
    }
    if (FREE_FORM.has(key)) continue;
    if (MAPS.has(key) && isRecord(member)) {
      for (const [name, entry] of Object.entries(member)) problems.push(...namingProblems(entry, `${at}.${name}`));
      continue;
    }
    problems.push(...namingProblems(member, at));
  }
  return problems;
}

function reportNaming(context: CheckContext, value: unknown, what: string, exchange: Pick<Exchange, 'request'> | undefined): void {
  const problems = namingProblems(value);
  if (problems.length === 0) {
    context.pass('CARD-006', `${what}: lowerCamelCase names and enum name strings`);
    return;
  }
  for (const problem of problems.slice(0, 5)) {
    context.fail('CARD-006', {
      message: `${what} does not use ProtoJSON names`,
      expected: 'lowerCamelCase member names and enum values as their proto name strings',
      observed: problem.problem,
      path: problem.path,
      ...(exchange ? { exchange } : {}),
    });
  }
}

/** Every `timestamp` in a response: RFC 3339 UTC with Z; milliseconds SHOULD be used (DATA-002). */
export function checkTimestamps(context: CheckContext, value: unknown, exchange: Pick<Exchange, 'request'>, path = ''): number {
  if (Array.isArray(value)) return value.reduce<number>((count, item, index) => count + checkTimestamps(context, item, exchange, `${path}[${index}]`), 0);
  if (!isRecord(value)) return 0;
  let count = 0;
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (FREE_FORM.has(key)) continue;
    if (key === 'timestamp' || key.endsWith('Timestamp')) {
      count += 1;
      const match = typeof member === 'string' ? /^\d{4}-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2}|z)$/.exec(member) : null;
      const valid = match !== null && match[7] === 'Z' && !Number.isNaN(Date.parse(match[0])) && Number(match[1]) >= 1 && Number(match[1]) <= 12 && Number(match[3]) <= 23;
      if (match === null || !valid) {
        context.fail('DATA-002', {
          message: 'a timestamp is not RFC 3339 UTC ending in Z',
          expected: 'e.g. 2025-10-28T10:30:00.000Z',
          observed: JSON.stringify(member),
          path: at,
          exchange,
        });
      } else if ((match[6] ?? '').length !== 3) {
        context.warn('DATA-002', { message: 'a timestamp does not use millisecond precision', expected: 'three fractional digits, e.g. 2025-10-28T10:30:00.000Z', observed: String(member), path: at, exchange });
      } else {
        context.pass('DATA-002', `${at} is ${String(member)}`);
      }
      continue;
    }
    count += checkTimestamps(context, member, exchange, at);
  }
  return count;
}

/** Sends one message and returns the task it created, if any (for the capability-absence checks). */
async function createTask(context: CheckContext, options: { interrupted?: boolean } = {}): Promise<{ taskId?: string; exchange: RpcExchange }> {
  const metadata = options.interrupted && context.cooperative ? { metadata: { [TEST_DIRECTIVE_KEY]: { outcome: 'input-required' } } } : {};
  const exchange = await context.transport.call(
    'SendMessage',
    withTenant(context, { message: context.message('conformance: a task to probe with', metadata), configuration: { returnImmediately: true } }),
  );
  const task = isRecord(exchange.result) && isRecord(exchange.result['task']) ? exchange.result['task'] : undefined;
  return { ...(task && typeof task['id'] === 'string' ? { taskId: task['id'] } : {}), exchange };
}

// ---------------------------------------------------------------------------------------------
// Interface probes (CARD-005, DATA-001).

interface InterfaceProbe {
  readonly label: string;
  readonly exchange: Exchange;
  /** Answered as the binding and version require. */
  readonly ok: boolean;
  readonly expected: string;
  /** The error type, for comparison across bindings: an ErrorInfo reason or a description. */
  readonly errorType: string;
}

function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** GetTask for an unknown id, sent to one declared interface in its own binding; undefined for bindings or versions the suite does not speak. */
async function probeInterface(context: CheckContext, entry: AgentInterface, index: number, taskId: string): Promise<InterfaceProbe | undefined> {
  if (typeof entry.url !== 'string' || typeof entry.protocolVersion !== 'string' || !/^1\.\d+/.test(entry.protocolVersion)) return undefined;
  const tenant = typeof entry.tenant === 'string' && entry.tenant !== '' ? entry.tenant : undefined;
  const version = majorMinor(entry.protocolVersion);
  const label = `supportedInterfaces[${index}] (${entry.protocolBinding} ${entry.url})`;
  if (entry.protocolBinding === 'JSONRPC') {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'conform-interface-probe', method: 'GetTask', params: { id: taskId, ...(tenant ? { tenant } : {}) } });
    const exchange = await context.transport.raw(body, { url: entry.url, headers: { 'content-type': 'application/json', accept: 'application/json', 'a2a-version': version } });
    const code = errorCodeOf(exchange);
    const json = exchange.json;
    const errorType = code === -32001 ? 'TASK_NOT_FOUND' : observedOf(exchange);
    return { label, exchange, ok: code === -32001 && isRecord(json) && json['jsonrpc'] === '2.0', expected: 'a JSON-RPC 2.0 error -32001 (TaskNotFoundError)', errorType };
  }
  if (entry.protocolBinding === 'HTTP+JSON') {
    let url: string;
    try {
      url = `${new URL(entry.url).href.replace(/\/+$/, '')}${tenant ? `/${encodeURIComponent(tenant)}` : ''}/tasks/${encodeURIComponent(taskId)}`;
    } catch {
      return undefined;
    }
    const exchange = await context.transport.raw(undefined, { method: 'GET', url, headers: { accept: 'application/a2a+json, application/json', 'a2a-version': version } });
    const error = isRecord(exchange.json) ? exchange.json['error'] : undefined;
    const reason = reasonOf(error);
    const ok = exchange.status === 404 && isRecord(error) && error['code'] === 404 && error['status'] === 'NOT_FOUND' && (reason === undefined || reason === 'TASK_NOT_FOUND');
    return { label, exchange, ok, expected: 'HTTP 404 with a google.rpc.Status body {"error":{"code":404,"status":"NOT_FOUND",…}} (reason TASK_NOT_FOUND)', errorType: ok ? 'TASK_NOT_FOUND' : observedOf(exchange) };
  }
  return undefined;
}

/** Whether an answer to an HTTP+JSON route probe shows the route exists. */
function looksLikeRestRoute(exchange: Exchange, kind: 'task' | 'card'): boolean {
  const json = exchange.json;
  if (kind === 'card') return exchange.status === 200 && isRecord(json) && Array.isArray(json['supportedInterfaces']);
  if (!isRecord(json)) return false;
  if (exchange.status === 404) return reasonOf(json['error']) === 'TASK_NOT_FOUND';
  return exchange.status === 200 && typeof json['id'] === 'string' && isRecord(json['status']);
}

// ---------------------------------------------------------------------------------------------

export const discoveryChecks: readonly Check[] = [
  {
    id: 'card-well-known',
    title: 'The agent card is served at /.well-known/agent-card.json',
    requirements: ['CARD-001'],
    async run(context) {
      const base = context.target.cardUrl ?? context.target.endpoint;
      const url = new URL(WELL_KNOWN, new URL(base).origin).href;
      const exchange = await context.transport.raw(undefined, { method: 'GET', url, headers: { accept: 'application/json' } });
      const card = exchange.json;
      const expected = `HTTP 200 with a JSON A2A 1.0 AgentCard at ${url}`;
      if (exchange.status !== 200 || !isRecord(card)) {
        context.fail('CARD-001', { message: 'no JSON agent card at the well-known location', expected, observed: observedOf(exchange), exchange });
      } else if (!Array.isArray(card['supportedInterfaces'])) {
        const legacy = 'url' in card || 'protocolVersion' in card;
        context.fail('CARD-001', {
          message: legacy ? 'the well-known location serves a 0.3 agent card' : 'the well-known location serves JSON that is not an AgentCard',
          expected,
          observed: legacy ? `a card with top-level url/protocolVersion ${JSON.stringify(card['protocolVersion'])} and no supportedInterfaces` : exchange.bodyText.slice(0, 300),
          exchange,
        });
      } else {
        context.pass('CARD-001', `served at ${url}`);
      }
    },
  },
  {
    id: 'card-shape',
    title: 'The public card is a valid 1.0 AgentCard: members, names, no 0.3 shapes',
    requirements: ['CARD-002', 'CARD-003', 'CARD-006', 'CARD-007'],
    run(context) {
      if (context.target.assumedCard) {
        for (const requirement of ['CARD-002', 'CARD-003', 'CARD-006', 'CARD-007']) context.skip(requirement, NO_CARD);
        return Promise.resolve();
      }
      const card = context.target.card as unknown;
      const evidence = cardEvidence(context);
      let value = card;
      if (isRecord(card) && Array.isArray(card['skills']) && card['skills'].length === 0) {
        context.warn('CARD-002', { message: 'the card lists no skills', expected: 'at least one skill', observed: '"skills": []', path: 'skills', ...evidence });
        value = { ...card, skills: [PLACEHOLDER_SKILL] };
      }
      if (context.checkShape('CARD-002', 'AgentCard', value, { ...evidence })) context.pass('CARD-002', 'the card is a valid AgentCard');

      const structure = cardStructureProblems(card);
      for (const problem of structure) context.fail('CARD-003', { message: 'a card member lacks a required field', expected: 'url, protocolBinding, protocolVersion per interface; id, name, description, tags per skill; url and organization in a provider', observed: problem.problem, path: problem.path, ...evidence });
      if (structure.length === 0) context.pass('CARD-003');

      reportNaming(context, card, 'the agent card', context.target.cardExchange);

      const legacy = legacyCardProblems(card);
      for (const problem of legacy) context.fail('CARD-007', { message: 'the card uses a 0.3-only shape', expected: 'no top-level url, preferredTransport, protocolVersion or additionalInterfaces; securitySchemes entries with exactly one wrapper member and no type', observed: problem.problem, path: problem.path, ...evidence });
      if (legacy.length === 0) context.pass('CARD-007');
      return Promise.resolve();
    },
  },
  {
    id: 'card-caching',
    title: 'The card response carries Cache-Control max-age and an ETag that revalidates',
    requirements: ['CARD-008'],
    async run(context) {
      const fetched = context.target.cardExchange;
      const cardUrl = context.target.cardUrl;
      if (fetched === undefined || cardUrl === undefined) {
        context.skip('CARD-008', NO_CARD);
        return;
      }
      const cacheControl = fetched.headers['cache-control'] ?? '';
      const etag = fetched.headers['etag'];
      if (/\bmax-age=\d+/i.test(cacheControl)) context.pass('CARD-008', `Cache-Control: ${cacheControl}`);
      else context.warn('CARD-008', { message: 'the card response has no Cache-Control max-age', expected: 'Cache-Control: …, max-age=<seconds>', observed: cacheControl === '' ? 'no Cache-Control header' : `Cache-Control: ${cacheControl}`, exchange: fetched });
      if (etag === undefined || etag === '') {
        context.warn('CARD-008', { message: 'the card response has no ETag', expected: 'an ETag header', observed: 'no ETag header', exchange: fetched });
        return;
      }
      const revalidated = await context.transport.raw(undefined, { method: 'GET', url: cardUrl, headers: { accept: 'application/json', 'if-none-match': etag } });
      if (revalidated.status === 304 || revalidated.status === 200) context.pass('CARD-008', `ETag ${etag}; If-None-Match answered ${revalidated.status}`);
      else context.warn('CARD-008', { message: 'a conditional GET with the card ETag fails', expected: 'HTTP 304 (or 200 with the card)', observed: observedOf(revalidated), exchange: revalidated });
    },
  },
  {
    id: 'card-bindings',
    title: 'Every declared interface answers in its binding and version; no undeclared HTTP+JSON routes',
    requirements: ['CARD-004', 'CARD-005'],
    async run(context) {
      if (context.target.assumedCard) {
        for (const requirement of ['CARD-004', 'CARD-005']) context.skip(requirement, NO_CARD);
        return;
      }
      const interfaces = interfacesOf(context);
      const taskId = unknownTaskId();
      let probed = 0;
      for (const [index, entry] of interfaces.entries()) {
        const probe = await probeInterface(context, entry, index, taskId);
        if (probe === undefined) continue;
        probed += 1;
        if (probe.ok) context.pass('CARD-005', `${probe.label} answered TaskNotFoundError in its binding`);
        else context.fail('CARD-005', { message: `${probe.label} does not answer a 1.0 request in its declared binding`, expected: probe.expected, observed: observedOf(probe.exchange), path: `supportedInterfaces[${index}]`, exchange: probe.exchange });
      }
      if (probed === 0) context.skip('CARD-005', 'no declared interface uses a binding and version the suite speaks (JSONRPC or HTTP+JSON, 1.x)');

      // HTTP+JSON routes answering where the card declares none.
      const restDeclared = new Set(interfaces.filter((entry) => entry.protocolBinding === 'HTTP+JSON').map((entry) => String(entry.url).replace(/\/+$/, '')));
      const bases = new Set<string>();
      for (const entry of interfaces) {
        try {
          const url = new URL(entry.url);
          bases.add(url.href.replace(/\/+$/, ''));
          bases.add(url.origin);
        } catch {
          // a relative or gRPC url: CARD-011 reports it
        }
      }
      let found = false;
      for (const base of [...bases].filter((candidate) => !restDeclared.has(candidate))) {
        for (const [route, kind] of [[`/tasks/${taskId}`, 'task'], ['/extendedAgentCard', 'card']] as const) {
          const exchange = await context.transport.raw(undefined, { method: 'GET', url: `${base}${route}`, headers: { accept: 'application/a2a+json, application/json', 'a2a-version': '1.0' } });
          if (looksLikeRestRoute(exchange, kind)) {
            found = true;
            context.fail('CARD-004', {
              message: `HTTP+JSON routes answer at ${base}, which no HTTP+JSON interface declares`,
              expected: 'every binding the agent serves declared in supportedInterfaces',
              observed: `GET ${base}${route}: ${observedOf(exchange)}`,
              exchange,
            });
          }
        }
      }
      if (!found) context.pass('CARD-004', `no undeclared HTTP+JSON routes at ${[...bases].join(', ') || 'the declared URLs'}`);
    },
  },
  {
    id: 'card-interface-urls',
    title: 'Interface URLs are absolute (and https outside loopback)',
    requirements: ['CARD-011'],
    run(context) {
      if (context.target.assumedCard) {
        context.skip('CARD-011', NO_CARD);
        return Promise.resolve();
      }
      const evidence = cardEvidence(context);
      for (const [index, entry] of interfacesOf(context).entries()) {
        if (entry.protocolBinding === 'GRPC') continue;
        const { verdict, reason } = classifyUrl(entry.url);
        const finding = { message: reason, expected: 'an absolute https URL (plain http only to loopback)', observed: JSON.stringify(entry.url), path: `supportedInterfaces[${index}].url`, ...evidence };
        if (verdict === 'pass') context.pass('CARD-011', reason);
        else if (verdict === 'warn') context.warn('CARD-011', finding);
        else context.fail('CARD-011', finding);
      }
      return Promise.resolve();
    },
  },
  {
    id: 'bindings-equivalent',
    title: 'Every declared interface reports the same error for the same request',
    requirements: ['DATA-001'],
    async run(context) {
      const interfaces = interfacesOf(context);
      if (interfaces.length < 2) {
        context.skip('DATA-001', 'the card declares one interface');
        return;
      }
      const taskId = unknownTaskId();
      const probes: InterfaceProbe[] = [];
      for (const [index, entry] of interfaces.entries()) {
        const probe = await probeInterface(context, entry, index, taskId);
        if (probe !== undefined) probes.push(probe);
      }
      const [first, ...others] = probes;
      if (first === undefined || others.length === 0) {
        context.skip('DATA-001', 'fewer than two declared interfaces use a binding and version the suite speaks');
        return;
      }
      for (const other of others) {
        if (other.errorType === first.errorType) context.pass('DATA-001', `${first.label} and ${other.label} both answer ${first.errorType}`);
        else context.fail('DATA-001', { message: 'two interfaces answer the same request differently', expected: `${other.label} answering like ${first.label}: ${first.errorType}`, observed: other.errorType, exchange: other.exchange });
      }
    },
  },
  {
    id: 'task-timestamps',
    title: 'Timestamps and member names in task responses',
    requirements: ['DATA-002', 'CARD-006'],
    async run(context) {
      const sent = await context.transport.call('SendMessage', withTenant(context, { message: context.message('conformance: timestamp probe') }));
      let seen = isRecord(sent.result) ? checkTimestamps(context, sent.result, sent) : 0;
      if (isRecord(sent.result)) reportNaming(context, sent.result, 'the SendMessage result', sent);
      const task = isRecord(sent.result) && isRecord(sent.result['task']) ? sent.result['task'] : undefined;
      if (task !== undefined && typeof task['id'] === 'string') {
        const got = await context.transport.call('GetTask', withTenant(context, { id: task['id'] }));
        if (isRecord(got.result)) {
          seen += checkTimestamps(context, got.result, got);
          reportNaming(context, got.result, 'the GetTask result', got);
        }
      }
      if (seen === 0) context.skip('DATA-002', 'no timestamp was seen in the task responses');
    },
  },
  {
    id: 'test-directives',
    title: 'The card advertises the test-directive extension and a directive is obeyed',
    requirements: ['DIRECTIVES-001', 'DATA-002', 'CARD-006'],
    cooperative: true,
    async run(context) {
      const extension = declaredExtensions(context).find((entry) => entry.uri === TEST_DIRECTIVES_EXTENSION);
      const evidence = cardEvidence(context);
      if (extension === undefined) {
        context.warn('DIRECTIVES-001', { message: 'cooperative mode, but the card does not list the test-directive extension', expected: `capabilities.extensions containing {"uri": "${TEST_DIRECTIVES_EXTENSION}"}`, observed: JSON.stringify(declaredExtensions(context).map((entry) => entry.uri)), path: 'capabilities.extensions', ...evidence });
      } else if (extension.required) {
        context.fail('DIRECTIVES-001', { message: 'the test-directive extension is declared required', expected: 'required absent or false: clients unaware of it must still be served', observed: 'required: true', path: 'capabilities.extensions', ...evidence });
      } else {
        context.pass('DIRECTIVES-001', 'the card lists the test-directive extension, not required');
      }
      const exchange = await context.transport.call(
        'SendMessage',
        withTenant(context, { message: context.message('conformance: directive probe', { metadata: { [TEST_DIRECTIVE_KEY]: { outcome: 'input-required' } } }) }),
      );
      const task = isRecord(exchange.result) && isRecord(exchange.result['task']) ? exchange.result['task'] : undefined;
      const state = task !== undefined && isRecord(task['status']) ? task['status']['state'] : undefined;
      if (state === 'TASK_STATE_INPUT_REQUIRED') context.pass('DIRECTIVES-001', 'outcome input-required produced TASK_STATE_INPUT_REQUIRED');
      else context.fail('DIRECTIVES-001', { message: 'a test directive was not obeyed', expected: `metadata {"${TEST_DIRECTIVE_KEY}": {"outcome": "input-required"}} ending in a task in TASK_STATE_INPUT_REQUIRED`, observed: state === undefined ? observedOf(exchange) : `state ${JSON.stringify(state)}`, exchange });
      if (isRecord(exchange.result)) {
        checkTimestamps(context, exchange.result, exchange);
        reportNaming(context, exchange.result, 'the SendMessage result', exchange);
      }
      if (task !== undefined && typeof task['id'] === 'string') await context.transport.call('CancelTask', withTenant(context, { id: task['id'] }));
    },
  },
  {
    id: 'streaming-absent',
    title: 'Without capabilities.streaming, SendStreamingMessage and SubscribeToTask are refused with -32004',
    requirements: ['SSE-001', 'SUB-001'],
    async run(context) {
      if (capabilityDeclared(context, 'streaming')) {
        for (const requirement of ['SSE-001', 'SUB-001']) context.skip(requirement, 'the card declares capabilities.streaming: true; the refusal applies only without it');
        return;
      }
      const streamed = await context.transport.stream('SendStreamingMessage', withTenant(context, { message: context.message('conformance: streaming must be refused') }), { until: () => true });
      expectRefusedStream(context, 'SSE-001', streamed);
      const { taskId, exchange } = await createTask(context, { interrupted: true });
      if (taskId === undefined) {
        context.skip('SUB-001', `no task could be created to subscribe to (${observedOf(exchange)})`);
        return;
      }
      const subscribed = await context.transport.stream('SubscribeToTask', withTenant(context, { id: taskId }), { until: () => true });
      expectRefusedStream(context, 'SUB-001', subscribed);
    },
  },
  {
    id: 'push-absent',
    title: 'Without capabilities.pushNotifications, the four push-config methods are refused with -32003',
    requirements: ['PUSH-001'],
    async run(context) {
      if (capabilityDeclared(context, 'pushNotifications')) {
        context.skip('PUSH-001', 'the card declares capabilities.pushNotifications: true; the refusal applies only without it');
        return;
      }
      const { taskId = unknownTaskId() } = await createTask(context);
      const configId = `conform-config-${randomUUID()}`;
      const calls: [string, object][] = [
        ['CreateTaskPushNotificationConfig', { taskId, url: 'https://example.invalid/a2a-conformance-webhook' }],
        ['GetTaskPushNotificationConfig', { taskId, id: configId }],
        ['ListTaskPushNotificationConfigs', { taskId }],
        ['DeleteTaskPushNotificationConfig', { taskId, id: configId }],
      ];
      for (const [method, params] of calls) {
        context.expectError('PUSH-001', await context.transport.call(method, withTenant(context, params)), { code: -32003, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' });
      }
    },
  },
  {
    id: 'extended-card-absent',
    title: 'Without capabilities.extendedAgentCard, GetExtendedAgentCard is refused with -32004',
    requirements: ['XCARD-001'],
    async run(context) {
      if (capabilityDeclared(context, 'extendedAgentCard')) {
        context.skip('XCARD-001', 'the card declares capabilities.extendedAgentCard: true; the refusal applies only without it');
        return;
      }
      context.expectError('XCARD-001', await context.transport.call('GetExtendedAgentCard', withTenant(context, {})), { code: -32004, reason: 'UNSUPPORTED_OPERATION' });
    },
  },
  {
    id: 'extended-card',
    title: 'An authenticated GetExtendedAgentCard returns a valid AgentCard (or -32007)',
    requirements: ['XCARD-002', 'XCARD-004'],
    capability: 'extendedAgentCard',
    async run(context) {
      const exchange = await context.transport.call('GetExtendedAgentCard', withTenant(context, {}));
      if (exchange.status === 401) {
        for (const requirement of ['XCARD-002', 'XCARD-004']) context.skip(requirement, 'GetExtendedAgentCard was refused with HTTP 401: give the suite credentials (--token) to check it');
        return;
      }
      if (exchange.error?.code === -32007) {
        context.pass('XCARD-002', 'answered -32007: no extended card is configured');
        context.skip('XCARD-004', 'no extended card is configured (-32007)');
        return;
      }
      const card = exchange.result;
      if (!isRecord(card) || !Array.isArray(card['supportedInterfaces'])) {
        for (const requirement of ['XCARD-002', 'XCARD-004']) {
          context.fail(requirement, { message: 'GetExtendedAgentCard returned neither an AgentCard nor -32007', expected: 'a result that is an AgentCard, or error -32007 (ExtendedAgentCardNotConfiguredError)', observed: observedOf(exchange), exchange });
        }
        return;
      }
      context.pass('XCARD-002', 'returned an AgentCard');
      const problems = [...cardStructureProblems(card), ...legacyCardProblems(card)];
      for (const problem of problems) context.fail('XCARD-004', { message: 'the extended card fails the public card checks', expected: 'an AgentCard that passes CARD-002, CARD-003 and CARD-007', observed: problem.problem, path: `result.${problem.path}`, exchange });
      const shaped = Array.isArray(card['skills']) && card['skills'].length === 0 ? { ...card, skills: [PLACEHOLDER_SKILL] } : card;
      if (context.checkShape('XCARD-004', 'AgentCard', shaped, { exchange, path: 'result' }) && problems.length === 0) context.pass('XCARD-004', 'the extended card is a valid AgentCard');
    },
  },
];

/** SSE-001 / SUB-001: a plain JSON-RPC -32004, never an opened stream. */
function expectRefusedStream(context: CheckContext, requirement: string, exchange: StreamExchange): void {
  if (exchange.ending === 'not-a-stream') {
    context.expectError(requirement, rpcOf(exchange), { code: -32004, reason: 'UNSUPPORTED_OPERATION' });
    return;
  }
  const first = exchange.events[0];
  context.fail(requirement, {
    message: 'the agent does not declare streaming but answered with a stream',
    expected: 'a JSON response with error -32004 (UnsupportedOperationError) instead of an SSE stream',
    observed: exchange.status === 0 ? `no response (${exchange.transportError ?? exchange.ending})` : `HTTP ${exchange.status} ${exchange.headers['content-type'] ?? ''}; first event: ${first?.data.slice(0, 200) ?? '(none)'}`,
    exchange,
  });
}
