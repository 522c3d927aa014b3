import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { isHttpToken } from '../../src/support/http-syntax.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, observedOf } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { Exchange } from '../core/exchange.js';
import type { MethodCall, ParamsOf, RpcExchange } from '../core/transport.js';
import { verifySignature } from './support/card-signing.js';
import { cardEvidence, classifyUrl, interfacesOf, NO_CARD } from './support/card.js';
import { unknownTaskId } from './support/tasks.js';
import { skipAll } from './support/verdicts.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

// ---------------------------------------------------------------------------------------------
// Requests without the configured credentials.

/**
 * A call on the check's binding without the run's own headers (the user's --token or
 * --header), carrying only `headers`: the request a client without credentials makes.
 */
function callWithout<M extends MethodName>(
  context: CheckContext,
  method: M,
  params: ParamsOf<M>,
  headers: Readonly<Record<string, string>> = {},
  query = '',
): Promise<RpcExchange> {
  return context.transport.call(method, params, { withoutRunHeaders: true, headers, ...(query === '' ? {} : { query }) });
}

function declaresSecurity(context: CheckContext): boolean {
  const card = context.target.card as { securitySchemes?: unknown; securityRequirements?: unknown };
  return (
    isRecord(card.securitySchemes) &&
    Object.keys(card.securitySchemes).length > 0 &&
    Array.isArray(card.securityRequirements) &&
    card.securityRequirements.length > 0
  );
}

/** Credentials of the right form but surely wrong, for the first scheme the card requires; undefined when there is no way to send wrong ones (mTLS). */
function wrongCredentials(context: CheckContext): { headers: Record<string, string>; query: string; scheme: string } | undefined {
  const card = context.target.card as { securitySchemes?: Record<string, unknown>; securityRequirements?: unknown[] };
  const requirement = card.securityRequirements?.find(isRecord);
  const name = requirement && isRecord(requirement['schemes']) ? Object.keys(requirement['schemes'])[0] : undefined;
  const scheme = name === undefined ? undefined : card.securitySchemes?.[name];
  if (!isRecord(scheme) || name === undefined) return undefined;
  const apiKey = scheme['apiKeySecurityScheme'];
  if (isRecord(apiKey) && typeof apiKey['name'] === 'string') {
    const keyName = apiKey['name'];
    if (apiKey['location'] === 'query') return { headers: {}, query: `${encodeURIComponent(keyName)}=conform-invalid-key`, scheme: name };
    if (apiKey['location'] === 'cookie') return { headers: { cookie: `${keyName}=conform-invalid-key` }, query: '', scheme: name };
    return { headers: { [keyName.toLowerCase()]: 'conform-invalid-key' }, query: '', scheme: name };
  }
  const http = scheme['httpAuthSecurityScheme'];
  if (isRecord(http) && typeof http['scheme'] === 'string' && http['scheme'].toLowerCase() === 'basic') {
    return { headers: { authorization: `Basic ${Buffer.from('conform:invalid').toString('base64')}` }, query: '', scheme: name };
  }
  if ('mtlsSecurityScheme' in scheme) return undefined;
  return { headers: { authorization: 'Bearer conform-invalid-token' }, query: '', scheme: name };
}

/** The auth-schemes of the card's HTTP authentication schemes (`Bearer`, `Basic`), lower-case. */
function declaredHttpSchemes(context: CheckContext): string[] {
  const schemes = (context.target.card as { securitySchemes?: unknown }).securitySchemes;
  return Object.values(isRecord(schemes) ? schemes : {}).flatMap((scheme) => {
    const http = isRecord(scheme) ? scheme['httpAuthSecurityScheme'] : undefined;
    return isRecord(http) && typeof http['scheme'] === 'string' ? [http['scheme'].toLowerCase()] : [];
  });
}

/** DATA-008: a 401 carries a challenge, for a scheme the card declares when it declares HTTP authentication. */
function expectChallenge(context: CheckContext, exchange: Exchange, what: string): void {
  const challenge = exchange.headers['www-authenticate'];
  // RFC 9110 §11.6.1: each challenge starts with its auth-scheme token.
  const offered = (challenge ?? '')
    .split(',')
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter((token) => isHttpToken(token) && !token.includes('='))
    .map((token) => token.toLowerCase());
  const declared = declaredHttpSchemes(context);
  if (challenge === undefined || challenge.trim() === '')
    context.fail('DATA-008', {
      message: `${what}: HTTP 401 without WWW-Authenticate`,
      expected: `a WWW-Authenticate challenge${declared.length > 0 ? ` for ${declared.join(' or ')}` : ''}`,
      observed: 'no WWW-Authenticate header',
      exchange,
    });
  else if (declared.length > 0 && !declared.some((scheme) => offered.includes(scheme)))
    context.fail('DATA-008', {
      message: `${what}: the WWW-Authenticate challenge names none of the card's HTTP schemes`,
      expected: `a challenge for ${declared.join(' or ')}`,
      observed: `WWW-Authenticate: ${challenge.slice(0, 200)}`,
      exchange,
    });
  else context.pass('DATA-008', `401 answers carry WWW-Authenticate (${offered.join(', ')})`);
}

function expectUnauthorized(context: CheckContext, requirement: RequirementId, exchange: RpcExchange, what: string): boolean {
  if (exchange.status === 401 && exchange.result === undefined) {
    context.pass(requirement, `${what}: HTTP 401`);
    expectChallenge(context, exchange, what);
    return true;
  }
  context.fail(requirement, {
    message: `${what} was not refused with HTTP 401`,
    expected: 'HTTP 401 (with WWW-Authenticate) and no result',
    observed: observedOf(exchange),
    exchange,
  });
  return false;
}

// ---------------------------------------------------------------------------------------------

export const securityChecks: readonly Check[] = [
  {
    id: 'card-signatures',
    once: true,
    title: 'Card signatures are well-formed JWS and verify over the JCS canonical card',
    requirements: ['CARD-009', 'CARD-010'],
    run(context) {
      if (context.target.assumedCard) {
        skipAll(context, ['CARD-009', 'CARD-010'], 'no-card', NO_CARD);
        return Promise.resolve();
      }
      const card = context.target.card as unknown;
      const signatures = isRecord(card) ? card['signatures'] : undefined;
      if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0)) {
        skipAll(context, ['CARD-009', 'CARD-010'], 'feature-absent', 'the card is not signed');
        return Promise.resolve();
      }
      const evidence = cardEvidence(context);
      if (!Array.isArray(signatures)) {
        context.fail('CARD-009', {
          message: 'signatures is not an array',
          expected: 'an array of {protected, signature, header?}',
          observed: JSON.stringify(signatures).slice(0, 200),
          path: 'signatures',
          ...evidence,
        });
        return Promise.resolve();
      }
      for (const [index, entry] of (signatures as unknown[]).entries()) {
        const path = `signatures[${index}]`;
        const fail = (
          observed: string,
          expected = 'protected and signature base64url strings; protected decoding to a JSON object with alg and kid',
        ) => context.fail('CARD-009', { message: `${path} is not a well-formed JWS signature`, expected, observed, path, ...evidence });
        if (!isRecord(entry) || typeof entry['protected'] !== 'string' || typeof entry['signature'] !== 'string') {
          fail(`${JSON.stringify(entry).slice(0, 200)}`);
          continue;
        }
        const protectedB64 = entry['protected'];
        const signatureB64 = entry['signature'];
        if (!BASE64URL.test(protectedB64) || !BASE64URL.test(signatureB64)) {
          fail('protected or signature is not unpadded base64url');
          continue;
        }
        let header: unknown;
        try {
          header = JSON.parse(Buffer.from(protectedB64, 'base64url').toString('utf8'));
        } catch {
          fail(`the protected header does not decode to JSON: ${Buffer.from(protectedB64, 'base64url').toString('utf8').slice(0, 120)}`);
          continue;
        }
        if (!isRecord(header) || typeof header['alg'] !== 'string' || typeof header['kid'] !== 'string') {
          fail(`protected header ${JSON.stringify(header).slice(0, 200)} lacks alg or kid`);
          continue;
        }
        if (header['typ'] === 'JOSE') context.pass('CARD-009', `${path}: alg ${header['alg']}, kid ${header['kid']}, typ JOSE`);
        else
          context.warn('CARD-009', {
            message: `${path} has no typ "JOSE"`,
            expected: 'typ: "JOSE" in the protected header',
            observed: header['typ'] === undefined ? 'no typ' : `typ ${JSON.stringify(header['typ'])}`,
            path,
            ...evidence,
          });

        const outcome = verifySignature(card, protectedB64, header, entry['header'], signatureB64);
        if ('skip' in outcome) context.skip('CARD-010', 'suite-limitation', `${path}: ${outcome.skip}`);
        else if (outcome.ok) context.pass('CARD-010', `${path} verifies (alg ${header['alg']}, kid ${header['kid']})`);
        else {
          context.fail('CARD-010', {
            message: `${path} does not verify`,
            expected: 'a detached-payload JWS over the RFC 8785 canonical card (signatures removed, default-valued fields omitted)',
            observed: outcome.reason,
            path,
            ...evidence,
          });
        }
      }
      return Promise.resolve();
    },
  },
  {
    id: 'transport-security',
    once: true,
    title: 'The card URL and interfaces use TLS (plain http only to loopback)',
    requirements: ['DATA-006'],
    run(context) {
      const evidence = cardEvidence(context);
      const urls: [string, unknown][] = [];
      if (context.target.cardUrl !== undefined) urls.push(['the card URL', context.target.cardUrl]);
      if (context.target.assumedCard) urls.push(['the endpoint', context.target.endpoint]);
      for (const [index, entry] of interfacesOf(context).entries())
        if (entry.protocolBinding !== 'GRPC') urls.push([`supportedInterfaces[${index}].url`, entry.url]);
      for (const [what, url] of urls) {
        const { verdict, reason } = classifyUrl(url);
        const finding = {
          message: `${what}: ${reason}`,
          expected: 'https (plain http only to a loopback host)',
          observed: JSON.stringify(url),
          ...(what.startsWith('supportedInterfaces') ? { path: what } : {}),
          ...evidence,
        };
        if (verdict === 'pass') context.pass('DATA-006', `${what}: ${reason}`);
        else if (verdict === 'warn') context.warn('DATA-006', finding);
        else context.fail('DATA-006', finding);
      }
      return Promise.resolve();
    },
  },
  {
    id: 'authentication',
    title: 'With declared security, requests without or with wrong credentials get 401 with a WWW-Authenticate challenge',
    requirements: ['DATA-004', 'DATA-008'],
    async run(context) {
      if (context.target.assumedCard || !declaresSecurity(context)) {
        skipAll(context, ['DATA-004', 'DATA-008'], 'feature-absent', 'the card declares no securitySchemes and securityRequirements');
        return;
      }
      const id = unknownTaskId();
      const operations: MethodCall[] = [
        ['GetTask', { id }],
        ['ListTasks', {}],
        ['CancelTask', { id }],
        ['SendMessage', { message: context.message('conformance: this must be refused without credentials') }],
      ];
      for (const [method, params] of operations)
        expectUnauthorized(context, 'DATA-004', await callWithout(context, method, params), `${method} without credentials`);
      const wrong = wrongCredentials(context);
      if (wrong !== undefined) {
        expectUnauthorized(
          context,
          'DATA-004',
          await callWithout(context, 'GetTask', { id }, wrong.headers, wrong.query),
          `GetTask with invalid credentials for scheme ${wrong.scheme}`,
        );
      }
      const valid = await context.transport.call('GetTask', { id });
      if (valid.status === 401)
        context.skip(
          'DATA-004',
          'no-credentials',
          'the suite was given no valid credentials (--token), so acceptance with them was not checked',
        );
      else if (isError(valid, 'TaskNotFoundError')) context.pass('DATA-004', 'the same request with the configured credentials is served');
      else
        context.fail('DATA-004', {
          message: 'the request with the configured credentials is not served',
          expected: `GetTask for an unknown id answered ${errorLabel('TaskNotFoundError')}`,
          observed: observedOf(valid),
          exchange: valid,
        });
    },
  },
  {
    id: 'extended-card-authentication',
    title: 'GetExtendedAgentCard without credentials is refused with 401',
    requirements: ['XCARD-003', 'DATA-008'],
    capability: 'extendedAgentCard',
    async run(context) {
      if (!declaresSecurity(context)) {
        context.skip(
          'XCARD-003',
          'feature-absent',
          'the card declares no securitySchemes and securityRequirements, so there are no credentials to leave out',
        );
        return;
      }
      expectUnauthorized(
        context,
        'XCARD-003',
        await callWithout(context, 'GetExtendedAgentCard', {}),
        'GetExtendedAgentCard without credentials',
      );
    },
  },
];
