import type { StreamResponse, Task } from '../../generated/a2a/1.0/types.js';
import { fillRoute, routeOf } from '../../src/protocol/rest-routes.js';
import { bodyOf, type NumberedBody } from './load.js';

/**
 * The requests the benchmark sends, and one checked sample of each against the hub before
 * any load: the load run itself only checks a cheap marker in every body, so the sample is
 * where we make sure the marker means what we think (a COMPLETED task with the echo artifact).
 */

export const RPC_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' } as const;
/** A 1.0 client's card request: without a version the hub answers the larger 0.3 form (docs/server.md). */
export const CARD_HEADERS = { 'a2a-version': '1.0' } as const;
export const SSE_HEADERS = { ...RPC_HEADERS, accept: 'text/event-stream' } as const;
export const COMPLETED_MARKER = '"TASK_STATE_COMPLETED"';
export const MESSAGE_TEXT = 'hello';
const EXPECTED_REPLY = `echo: ${MESSAGE_TEXT}`;

/**
 * A JSON-RPC send with a messageId unique to this run and request: the hub dedupes by
 * messageId, so a repeated id would be answered from the store without running anything.
 */
export function sendBody(method: 'SendMessage' | 'SendStreamingMessage', runTag: string): NumberedBody {
  const request = restSendBody(runTag);
  return { prefix: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${request.prefix}`, suffix: `${request.suffix}}` };
}

/** The same SendMessageRequest as an HTTP+JSON body (the bare request message, no envelope). */
export function restSendBody(runTag: string): NumberedBody {
  return {
    prefix: `{"message":{"messageId":"${runTag}-`,
    suffix: `","role":"ROLE_USER","parts":[{"text":"${MESSAGE_TEXT}"}]}}`,
  };
}

/** The default instance's HTTP+JSON send routes, from the route table. */
export const REST_SEND_PATH = `/a2a/default${fillRoute(routeOf('SendMessage', false), {}) ?? ''}`;
export const REST_STREAM_PATH = `/a2a/default${fillRoute(routeOf('SendStreamingMessage', false), {}) ?? ''}`;

const FETCH_TIMEOUT_MS = 10_000;

export interface Samples {
  readonly card: string;
  readonly rpc: string;
  readonly sse: string;
  readonly sseFrames: number;
}

/** Where an agent under test serves JSON-RPC, and whether its streams end with a Task frame (the hub's do, §3.1.2's MAY). */
export interface SampleTarget {
  readonly rpcPath: string;
  readonly finalTask: boolean;
}

const HUB_SAMPLE: SampleTarget = { rpcPath: '/a2a/default', finalTask: true };

/**
 * Fetches one card, one blocking SendMessage and one SendStreamingMessage from the hub (or the
 * @a2a-js/sdk reference, at its path) and checks each.
 */
export async function sampleHub(hubUrl: string, runTag: string, target: SampleTarget = HUB_SAMPLE): Promise<Samples> {
  const cardResponse = await fetch(`${hubUrl}/.well-known/agent-card.json`, {
    headers: CARD_HEADERS,
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  const card = await cardResponse.text();
  const parsedCard = JSON.parse(card) as { name?: unknown };
  if (cardResponse.status !== 200 || typeof parsedCard.name !== 'string')
    throw new Error(`sample card: unexpected ${cardResponse.status} ${card.slice(0, 200)}`);

  const rpcResponse = await fetch(`${hubUrl}${target.rpcPath}`, {
    method: 'POST',
    headers: RPC_HEADERS,
    body: bodyOf(sendBody('SendMessage', `${runTag}-sample`), 0),
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  const rpc = await rpcResponse.text();
  const task = (JSON.parse(rpc) as { result?: { task?: Task } }).result?.task;
  const reply = task?.artifacts?.flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('');
  if (
    rpcResponse.status !== 200 ||
    task?.status.state !== 'TASK_STATE_COMPLETED' ||
    reply !== EXPECTED_REPLY ||
    !rpc.includes(COMPLETED_MARKER)
  ) {
    throw new Error(
      `sample SendMessage: expected a COMPLETED task replying "${EXPECTED_REPLY}", got ${rpcResponse.status} ${rpc.slice(0, 300)}`,
    );
  }

  const sseResponse = await fetch(`${hubUrl}${target.rpcPath}`, {
    method: 'POST',
    headers: SSE_HEADERS,
    body: bodyOf(sendBody('SendStreamingMessage', `${runTag}-sample-stream`), 0),
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  const sse = await sseResponse.text();
  const frames = sseFrames(sse);
  const completed = frames.at(target.finalTask ? -2 : -1);
  if (
    sseResponse.status !== 200 ||
    !sseResponse.headers.get('content-type')?.startsWith('text/event-stream') ||
    frames[0]?.task === undefined ||
    completed?.statusUpdate?.status.state !== 'TASK_STATE_COMPLETED' ||
    (target.finalTask && frames.at(-1)?.task?.status.state !== 'TASK_STATE_COMPLETED')
  ) {
    const expected = target.finalTask ? 'Task … COMPLETED, Task' : 'Task … COMPLETED';
    throw new Error(`sample SendStreamingMessage: expected ${expected} frames, got ${sseResponse.status} ${sse.slice(0, 300)}`);
  }
  return { card, rpc, sse, sseFrames: frames.length };
}

/** The StreamResponse of each `data:` event (the hub writes one data line per event). */
export function sseFrames(text: string): StreamResponse[] {
  return text
    .split('\n\n')
    .map((event) => event.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => (JSON.parse(line.slice('data: '.length)) as { result: StreamResponse }).result);
}

/** Same checks against the bare reference, so both sides are known to answer the same bytes. */
export async function sampleBare(bareUrl: string, samples: Samples): Promise<void> {
  const card = await (await fetch(`${bareUrl}/.well-known/agent-card.json`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })).text();
  const rpc = await (
    await fetch(`${bareUrl}/a2a/default`, {
      method: 'POST',
      headers: RPC_HEADERS,
      body: bodyOf(sendBody('SendMessage', 'bare'), 0),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    })
  ).text();
  const sse = await (
    await fetch(`${bareUrl}/a2a/default`, {
      method: 'POST',
      headers: SSE_HEADERS,
      body: bodyOf(sendBody('SendStreamingMessage', 'bare'), 0),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    })
  ).text();
  if (card !== samples.card || rpc !== samples.rpc || sse !== samples.sse)
    throw new Error('the bare reference does not answer the configured bodies');
}

/** Walks every ListTasks page (pageSize 100) over JSON-RPC and times each request. */
export async function walkListTasks(hubUrl: string, maxPages: number): Promise<{ pageMs: number[]; tasks: number; totalSize: number }> {
  const pageMs: number[] = [];
  let tasks = 0;
  let totalSize = 0;
  let pageToken = '';
  for (let page = 0; page < maxPages; page += 1) {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: page,
      method: 'ListTasks',
      params: { pageSize: 100, ...(pageToken ? { pageToken } : {}) },
    });
    const started = performance.now();
    const response = await fetch(`${hubUrl}/a2a/default`, {
      method: 'POST',
      headers: RPC_HEADERS,
      body,
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    const parsed = (await response.json()) as { result?: { tasks: unknown[]; nextPageToken: string; totalSize: number }; error?: unknown };
    pageMs.push(performance.now() - started);
    if (parsed.result === undefined) throw new Error(`ListTasks failed: ${JSON.stringify(parsed.error)}`);
    tasks += parsed.result.tasks.length;
    totalSize = parsed.result.totalSize;
    pageToken = parsed.result.nextPageToken;
    if (pageToken === '') break;
  }
  return { pageMs, tasks, totalSize };
}
