import { randomUUID } from 'node:crypto';
import type { Artifact, Message } from '../../generated/a2a/1.0/types.js';
import type { WORKER_STATES } from '../../generated/hub/gateway-methods.js';
import type { WorkerAssignment, WorkerRelease } from '../../generated/hub/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import type { AgentExecutor, ExecutionEvents, ExecutionRequest } from './executor.js';
import type { Preset } from './presets.js';

/**
 * The `worker` preset (seed 004's agent side): the hub holds each task and an external process
 * does the work. A worker connects a feed (GET <endpoint>/worker/feed, src/http/worker-feed.ts)
 * with the instance's token and is given tasks one by one; it reports with UpdateStatus and
 * hands in the result with CompleteTask (src/server/gateway-calls.ts). A task waits SUBMITTED
 * until a worker takes it, is WORKING while one holds it, goes back to the queue when that
 * worker's feed drops, and is taken back from it (a `released` event) when the client cancels.
 */

export const WORKER_PRESET = 'worker';

// The shapes of src/server/hosted-agent.ts's WorkerPort, which executors may not import (layers.json).
type WorkerState = (typeof WORKER_STATES)[number];

/** One connected worker: told of the tasks it gets and of those taken back, and disconnected by the hub. */
export interface WorkerFeedSink {
  assigned(assignment: WorkerAssignment): void;
  released(release: WorkerRelease): void;
  /** Ends the feed; its tasks go back in line (the detach the attach returned runs). */
  close(): void;
}

/** What a worker's report says about itself: the assignment it got, when it names it. */
export interface ReportOrigin {
  readonly assignmentId?: string | undefined;
}

/** A task waiting for a worker or held by one, with the execution that ends when the worker is done. */
interface Job {
  assignment: WorkerAssignment;
  readonly events: ExecutionEvents;
  /** Resolves the execution: the task is interrupted or finished, or was taken back. */
  readonly finish: () => void;
  holder: WorkerFeedSink | undefined;
}

/** The tasks of one instance: those waiting in arrival order, and those each connected worker holds. */
export class WorkerBoard {
  readonly #waiting: Job[] = [];
  readonly #jobs = new Map<string, Job>();
  readonly #feeds = new Map<WorkerFeedSink, Set<string>>();

  /** Connects a feed; it is given waiting tasks at once. Returns the disconnect, which puts its tasks back first in line. */
  attach(feed: WorkerFeedSink): () => void {
    this.#feeds.set(feed, new Set());
    this.#dispatch();
    return () => {
      const held = this.#feeds.get(feed);
      this.#feeds.delete(feed);
      const orphans = [...(held ?? [])].flatMap((taskId) => this.#jobs.get(taskId) ?? []);
      for (const job of orphans) job.holder = undefined;
      this.#waiting.unshift(...orphans);
      this.#dispatch();
    };
  }

  /** Disconnects every worker (the instance's token, path or preset changed, or it went away): each may reconnect if it still can. */
  closeFeeds(): void {
    for (const feed of [...this.#feeds.keys()]) feed.close();
  }

  complete(
    taskId: string,
    result: { readonly artifacts: readonly Artifact[]; readonly message?: Message },
    origin: ReportOrigin = {},
  ): void {
    const job = this.#held(taskId, origin);
    for (const artifact of result.artifacts) {
      job.events.artifact({
        artifactId: artifact.artifactId,
        parts: artifact.parts,
        lastChunk: true,
        ...(artifact.name === undefined ? {} : { name: artifact.name }),
        ...(artifact.description === undefined ? {} : { description: artifact.description }),
        ...(artifact.metadata === undefined ? {} : { metadata: artifact.metadata }),
        ...(artifact.extensions === undefined ? {} : { extensions: artifact.extensions }),
      });
    }
    job.events.complete(result.message?.parts);
    this.#settle(job, origin, 'completed by CompleteTask');
  }

  update(taskId: string, state: WorkerState, message?: Message, origin: ReportOrigin = {}): void {
    const job = this.#held(taskId, origin);
    const parts = message?.parts;
    if (state === 'TASK_STATE_WORKING') {
      job.events.working(parts);
      return;
    }
    // The other states interrupt or end the task, so they need what the client will read.
    const said = parts ?? `the worker set the task ${state}`;
    const apply: Record<Exclude<WorkerState, 'TASK_STATE_WORKING'>, () => void> = {
      TASK_STATE_INPUT_REQUIRED: () => job.events.inputRequired(said),
      TASK_STATE_AUTH_REQUIRED: () => job.events.authRequired(said),
      TASK_STATE_FAILED: () => job.events.fail(said),
      TASK_STATE_REJECTED: () => job.events.reject(said),
    };
    apply[state]();
    this.#settle(job, origin, `set ${state} by UpdateStatus`);
  }

  /** Runs one execution: the task waits for a worker, and the execution ends when the worker is done or the task is canceled. */
  run(request: ExecutionRequest, events: ExecutionEvents, signal: AbortSignal): Promise<void> {
    // Canceled before it was queued: nothing to give a worker.
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const job: Job = {
        assignment: {
          assignmentId: '',
          taskId: request.taskId,
          contextId: request.contextId,
          tenant: request.tenant,
          skill: request.skill,
          resumed: request.resumed,
          text: request.text,
          message: request.message,
        },
        events,
        finish: resolve,
        holder: undefined,
      };
      this.#jobs.set(request.taskId, job);
      // A new task waits SUBMITTED, and the send is answered (returnImmediately) before any worker takes it.
      if (!request.resumed) events.accept();
      this.#waiting.push(job);
      signal.addEventListener('abort', () => this.#takeBack(job, reasonOf(signal)), { once: true });
      this.#dispatch();
    });
  }

  #held(taskId: string, origin: ReportOrigin): Job {
    const job = this.#jobs.get(taskId);
    if (job !== undefined && origin.assignmentId !== undefined && origin.assignmentId !== job.assignment.assignmentId) {
      throw a2aError(
        'TaskNotFoundError',
        `assignment ${origin.assignmentId} of task ${taskId} is over: the task was given to another worker after this one's feed closed`,
        { metadata: { taskId } },
      );
    }
    if (job === undefined || job.holder === undefined) {
      throw a2aError(
        'TaskNotFoundError',
        job === undefined
          ? `no worker holds task ${taskId}: it is not a task of this agent waiting for its worker (finished, canceled, or never this agent's)`
          : `task ${taskId} is waiting for a worker: take it from the feed before reporting on it`,
        { metadata: { taskId } },
      );
    }
    return job;
  }

  /** Offers waiting tasks, oldest first, each to the connected worker holding the fewest. */
  #dispatch(): void {
    while (this.#waiting.length > 0 && this.#feeds.size > 0) {
      const job = this.#waiting.shift() as Job;
      const [feed, held] = [...this.#feeds].reduce((least, entry) => (entry[1].size < least[1].size ? entry : least));
      job.holder = feed;
      // Each time the task is given out it has a new assignment, so a report can say which it answers.
      job.assignment = { ...job.assignment, assignmentId: randomUUID() };
      held.add(job.assignment.taskId);
      job.events.working();
      feed.assigned(job.assignment);
    }
  }

  /**
   * The task leaves the board. Its holder is told, unless the report named the holder's own
   * assignment: a report without one may come from a worker that held the task before.
   */
  #settle(job: Job, origin: ReportOrigin, reason: string): void {
    const holder = job.holder;
    const mine = origin.assignmentId !== undefined && origin.assignmentId === job.assignment.assignmentId;
    this.#forget(job);
    if (!mine) holder?.released({ taskId: job.assignment.taskId, reason });
    job.finish();
  }

  #takeBack(job: Job, reason: string): void {
    if (this.#jobs.get(job.assignment.taskId) !== job) return;
    const holder = job.holder;
    this.#forget(job);
    holder?.released({ taskId: job.assignment.taskId, reason });
    job.finish();
  }

  #forget(job: Job): void {
    const taskId = job.assignment.taskId;
    this.#jobs.delete(taskId);
    const waiting = this.#waiting.indexOf(job);
    if (waiting >= 0) this.#waiting.splice(waiting, 1);
    if (job.holder !== undefined) this.#feeds.get(job.holder)?.delete(taskId);
    job.holder = undefined;
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'the task was canceled';
}

/** The worker preset, with one board per instance; create one per hub (PresetRegistry does). */
export function workerPreset(): Preset {
  const boards = new Map<string, WorkerBoard>();
  const boardOf = (instanceId: string): WorkerBoard => {
    let board = boards.get(instanceId);
    if (board === undefined) {
      board = new WorkerBoard();
      boards.set(instanceId, board);
    }
    return board;
  };
  const executor: AgentExecutor = {
    execute: (request, events, signal) => boardOf(request.instanceId).run(request, events, signal),
  };
  return {
    id: WORKER_PRESET,
    name: 'Worker',
    description: 'Holds each task for an external worker, which takes it from a feed and reports with UpdateStatus and CompleteTask.',
    executor,
    skills: [
      {
        id: 'chat',
        name: 'chat',
        description: 'Done by the external worker connected to this agent.',
        tags: ['worker'],
      },
    ],
    inputModes: ['text/plain', 'application/json', '*/*'],
    outputModes: ['text/plain', 'application/json', '*/*'],
    extensions: [],
    workerOf: boardOf,
    close: () => {
      for (const board of boards.values()) board.closeFeeds();
    },
  };
}
