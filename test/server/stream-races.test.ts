import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { StreamResponse, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { call, stream, userMessage, type SseEvent } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';

/**
 * Subscribers raced against the writes of the tasks they follow, many times: each stream,
 * whenever it starts, on whichever replica, resumed or not, sends the snapshot, then frames
 * whose ids only go up, never one the snapshot already holds, with no gap, to the end. On one
 * SQLite hub, and on two replicas sharing PostgreSQL (the writer on one, subscribers on both).
 */
const postgres = sharedTestPostgres();

const WORK = { steps: 12, stepMs: 8, chunks: 4 } as const;
const TASKS_PER_ROUND = 8;
const ROUNDS = 3;

interface Setup {
  readonly writer: TestHub;
  readonly readers: readonly TestHub[];
}

function statusOf(event: SseEvent | undefined): TaskStatus | undefined {
  return event?.frame.task?.status ?? event?.frame.statusUpdate?.status;
}

/** Everything wrong with one stream, as readable lines (empty when it keeps every promise). */
function problemsOf(events: readonly SseEvent[], resumedAfter: number | undefined, log: ReadonlyMap<number, StreamResponse>): string[] {
  const problems: string[] = [];
  const [snapshot, ...rest] = events;
  if (snapshot?.frame.task === undefined) return ['the first event is not the task snapshot'];
  const last = rest.at(-1);
  const closing = last?.frame.task !== undefined ? last : undefined;
  const frames = closing === undefined ? rest : rest.slice(0, -1);
  const snapshotId = Number(snapshot.id);
  if (resumedAfter !== undefined && snapshotId > resumedAfter)
    problems.push(`resumed after ${resumedAfter}, the snapshot has id ${snapshotId}`);
  let previous = snapshotId;
  for (const event of frames) {
    const id = Number(event.id);
    if (!(id > previous)) problems.push(`id ${id} after ${previous}`);
    previous = id;
    const logged = log.get(id);
    if (logged !== undefined && JSON.stringify(logged) !== JSON.stringify(event.frame)) problems.push(`frame ${id} is not the logged one`);
  }
  if (resumedAfter === undefined) {
    // A live stream: every frame after the snapshot, one by one, and none the snapshot holds.
    const ids = frames.map((event) => Number(event.id));
    if (ids.some((id, index) => id !== snapshotId + 1 + index))
      problems.push(`a gap or a repeat: snapshot ${snapshotId}, then ${ids.join(',')}`);
    const firstStatus = statusOf(frames.find((event) => event.frame.statusUpdate !== undefined));
    if (firstStatus !== undefined && JSON.stringify(firstStatus) === JSON.stringify(snapshot.frame.task.status))
      problems.push(`the first status after the snapshot (${firstStatus.state}) is the snapshot's own`);
  }
  const finalState = statusOf(frames.at(-1))?.state;
  if (finalState === undefined || !isTerminalState(finalState)) problems.push(`ends at ${String(finalState)}, not a terminal state`);
  if (closing !== undefined && closing.id !== frames.at(-1)?.id) problems.push('the closing task does not repeat the terminal frame id');
  return problems;
}

async function race(setup: Setup): Promise<void> {
  const problems: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    await Promise.all(
      Array.from({ length: TASKS_PER_ROUND }, async (_, index) => {
        const sent = await call(`${setup.writer.url}/a2a/default`, 'SendMessage', {
          message: userMessage(`race ${round}/${index}`, { metadata: testDirectiveMetadata(WORK) }),
          configuration: { returnImmediately: true },
        });
        const taskId = sent.task?.id ?? '';
        const subscribe = async (reader: TestHub, delayMs: number, resume: boolean) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          const endpoint = `${reader.url}/a2a/default`;
          let resumedAfter: number | undefined;
          if (resume) {
            const cut = await stream(
              endpoint,
              'SubscribeToTask',
              { id: taskId },
              { until: (event) => event.frame.statusUpdate !== undefined },
            ).catch(() => undefined);
            const lastSeen = cut?.events.at(-1);
            if (lastSeen === undefined || lastSeen.frame.task !== undefined) return undefined;
            resumedAfter = Number(lastSeen?.id);
          }
          const opened = await stream(
            endpoint,
            'SubscribeToTask',
            { id: taskId },
            resumedAfter === undefined ? {} : { headers: { 'last-event-id': String(resumedAfter) } },
          ).catch(
            () => undefined, // the task ended before the subscription: refused, nothing to judge
          );
          return opened === undefined
            ? undefined
            : { events: opened.events, resumedAfter, reader: reader === setup.writer ? 'writer' : 'reader' };
        };
        const streams = await Promise.all(
          setup.readers.flatMap((reader) => [
            subscribe(reader, Math.random() * 40, false),
            subscribe(reader, Math.random() * 40, index % 2 === 0),
          ]),
        );
        // The log as the writer's own complete stream shows it, frame id by frame id.
        const task = await call(`${setup.writer.url}/a2a/default`, 'GetTask', { id: taskId });
        expect(isTerminalState(task.status.state)).toBe(true);
        const log = new Map<number, StreamResponse>();
        for (const opened of streams)
          for (const event of opened?.events.slice(1, -1) ?? []) if (!log.has(Number(event.id))) log.set(Number(event.id), event.frame);
        for (const opened of streams) {
          if (opened === undefined) continue;
          for (const problem of problemsOf(opened.events, opened.resumedAfter, log))
            problems.push(
              `task ${taskId} on the ${opened.reader}${opened.resumedAfter === undefined ? '' : ` resumed after ${opened.resumedAfter}`}: ${problem}`,
            );
        }
      }),
    );
  }
  expect(problems).toEqual([]);
}

describe('streams raced against their task’s writes on one SQLite hub', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub.dispose();
  });

  it(`keeps every promise of every stream, ${ROUNDS * TASKS_PER_ROUND} tasks with 2 subscribers each (half resumed)`, async () => {
    await race({ writer: hub, readers: [hub] });
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('streams raced against their task’s writes on two replicas sharing PostgreSQL', () => {
  let a: TestHub;
  let b: TestHub;
  beforeAll(async () => {
    const databaseUrl = await postgres.databaseUrl();
    a = await startTestHub({ store: 'postgres', databaseUrl });
    b = await startTestHub({ store: 'postgres', databaseUrl });
  });
  afterAll(async () => {
    await a?.dispose();
    await b?.dispose();
  });

  it(`keeps every promise of every stream on the writer and on the other replica, ${ROUNDS * TASKS_PER_ROUND} tasks with 4 subscribers each`, async () => {
    await race({ writer: a, readers: [a, b] });
  });
});
