import { randomUUID } from 'node:crypto';
import { isThisProtocolVersion as is03 } from '../../generated/a2a/0.3/protocol.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import type { DiscoverPreview } from '../../generated/control/types.js';
import { A2AClient, isClientBinding, pickInterface, type ClientBindingName, type ConnectOptions } from '../client/a2a-client.js';
import { HttpTransport, type HttpRequest } from '../client/http-transport.js';
import { readRestStatus } from '../client/rest-error.js';
import type { UrlPolicy } from '../net/destination-policy.js';
import { readJsonRpcAnswer } from '../protocol/jsonrpc.js';
import { versionedInterfaceProbe } from '../protocol/v03/interface-probe.js';
import { errorObject03 } from '../protocol/v03/errors.js';
import { describeError } from '../support/describe-error.js';
import { isRecord } from '../support/records.js';

export interface RemoteSettings {
  /** Sent as a bearer token; never part of a message this module produces. */
  readonly token?: string;
  readonly timeoutMs: number;
  readonly urlPolicy?: UrlPolicy;
  /** Aborts the endpoint check (the card fetch is bounded by timeoutMs alone). */
  readonly signal?: AbortSignal;
  /** The binding to speak; absent: the card's first the client speaks. */
  readonly binding?: ClientBindingName;
}

/** Why a connect failed, in words a person can act on. */
export class ConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConnectError';
  }
}

/** Client options for a connection: the policy travels with every request the client makes. */
export function clientOptions(settings: RemoteSettings): ConnectOptions {
  return {
    timeoutMs: settings.timeoutMs,
    ...(settings.token === undefined ? {} : { token: settings.token }),
    ...(settings.urlPolicy === undefined ? {} : { urlPolicy: settings.urlPolicy }),
    ...(settings.binding === undefined ? {} : { binding: settings.binding }),
  };
}

/**
 * Reads and checks the card, then asks the interface the client picked for a task that cannot
 * exist. The card is public on most agents, so only that second request shows whether the
 * interface answers at all and whether it takes our token; any A2A answer of its binding means it does.
 */
export async function connectRemote(agentCardUrl: string, settings: RemoteSettings): Promise<A2AClient> {
  const client = await readRemoteCard(agentCardUrl, settings);
  await checkEndpoint(client, settings);
  return client;
}

/** Reads and checks a card without keeping anything: what outbound.discover shows. */
export async function discoverRemote(agentCardUrl: string, settings: RemoteSettings): Promise<DiscoverPreview> {
  const client = await readRemoteCard(agentCardUrl, settings);
  return previewOf(client.card, client.endpoint, client.protocolBinding);
}

/** The client reads only the card of the URL given (src/protocol/card-location.ts), never another agent's of the same host. */
async function readRemoteCard(agentCardUrl: string, settings: RemoteSettings): Promise<A2AClient> {
  try {
    return await A2AClient.connect(agentCardUrl, clientOptions(settings));
  } catch (error) {
    throw new ConnectError(describeError(error), { cause: error });
  }
}

export function previewOf(card: AgentCard, endpoint: string, protocolBinding?: string): DiscoverPreview {
  const selected =
    protocolBinding !== undefined && isClientBinding(protocolBinding)
      ? pickInterface(card, { binding: protocolBinding })
      : pickInterface(card);
  const protocolVersion = selected?.protocolVersion;
  return {
    name: card.name,
    version: card.version,
    description: card.description,
    endpoint,
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    skills: card.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description, tags: [...skill.tags] })),
  };
}

/** The request that shows whether an interface answers, and how to read the answer, per binding. */
interface Probe {
  readonly url: string;
  readonly request: Omit<HttpRequest, 'signal' | 'headers'> & { readonly headers: Record<string, string> };
  /** The agent's error message, when the answer is an error of the binding. */
  readonly errorMessage: (text: string) => string | undefined;
  readonly isAnswer: (text: string) => boolean;
  /** What a right answer is, in the message when it did not come. */
  readonly answer: string;
}

function probeOf(client: A2AClient): Probe {
  const id = `a2a-hub-connect-check-${randomUUID()}`;
  // The interface the client chose: its tenant is what the client's own requests carry.
  const tenant = client.card.supportedInterfaces.find(
    (entry) =>
      entry.url === client.endpoint &&
      entry.protocolBinding === client.protocolBinding &&
      // The same generation: a dual-stack card lists a URL once per version, and only 1.x has tenants.
      is03(entry.protocolVersion) === is03(client.protocolVersion),
  )?.tenant;
  const probe = versionedInterfaceProbe(
    { protocolBinding: client.protocolBinding, url: client.endpoint, tenant, protocolVersion: client.protocolVersion },
    id,
  );
  if (probe === undefined) throw new ConnectError(`the client chose ${client.protocolBinding}, a binding the connect check cannot probe`);
  const { url, ...request } = probe;
  if (client.protocolBinding === 'HTTP+JSON' && is03(client.protocolVersion)) {
    return {
      url,
      request: { ...request, headers: { ...request.headers } },
      errorMessage: (text) => errorObject03(parsedJson(text))?.message,
      isAnswer: (text) => errorObject03(parsedJson(text)) !== undefined,
      answer: 'an A2A 0.3 HTTP+JSON answer',
    };
  }
  if (client.protocolBinding === 'HTTP+JSON') {
    return {
      url,
      request: { ...request, headers: { ...request.headers } },
      errorMessage: (text) => readRestStatus(text)?.message,
      isAnswer: (text) => readRestStatus(text) !== undefined,
      answer: 'an HTTP+JSON answer',
    };
  }
  return {
    url,
    request: { ...request, headers: { ...request.headers } },
    errorMessage: jsonRpcErrorMessage,
    isAnswer: (text) => readJsonRpcAnswer(text) !== undefined,
    answer: 'a JSON-RPC answer',
  };
}

async function checkEndpoint(client: A2AClient, settings: RemoteSettings): Promise<void> {
  const endpoint = client.endpoint;
  const probe = probeOf(client);
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = settings.signal === undefined ? timeout : AbortSignal.any([timeout, settings.signal]);
  let response: Response;
  let text: string;
  try {
    response = await new HttpTransport(settings.urlPolicy === undefined ? {} : { urlPolicy: settings.urlPolicy }).send(probe.url, {
      ...probe.request,
      headers: {
        ...probe.request.headers,
        ...(settings.token === undefined ? {} : { authorization: `Bearer ${settings.token}` }),
      },
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (timeout.aborted) throw new ConnectError(`the endpoint ${endpoint} did not answer within ${settings.timeoutMs} ms`);
    throw new ConnectError(`the endpoint ${endpoint} is not reachable: ${describeError(error)}`, { cause: error });
  }
  if (response.status === 401 || response.status === 403) {
    const remote = probe.errorMessage(text);
    const what = settings.token === undefined ? 'no bearer token is set' : 'the bearer token was refused';
    throw new ConnectError(
      `the endpoint ${endpoint} answered HTTP ${response.status}${remote === undefined ? '' : ` (${remote})`}: ${what}; set one with outbound.setAuth`,
    );
  }
  // A REST agent may answer the probe with a task of that id rather than an error: any JSON success counts too.
  if (!probe.isAnswer(text) && !(client.protocolBinding === 'HTTP+JSON' && response.ok))
    throw new ConnectError(`the endpoint ${endpoint} answered HTTP ${response.status} without ${probe.answer}`);
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonRpcErrorMessage(text: string): string | undefined {
  const error = readJsonRpcAnswer(text)?.['error'];
  return isRecord(error) && typeof error['message'] === 'string' ? error['message'] : undefined;
}
