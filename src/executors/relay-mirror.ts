import type { Artifact, Part, StreamResponse, Task, TaskStatus } from '../../generated/a2a/1.0/types.js';
import type { ExecutionEvents } from './executor.js';

/**
 * Replays a remote task's frames as the local task's events: working updates and artifacts as
 * they arrive; the final state once, from the task the turn ended with (`settle`). Artifacts
 * keep their remote ids, and a Task snapshot (polling, or a stream resumed after a drop) only
 * adds what the chunks have not already delivered, so nothing is mirrored twice.
 */
export class RemoteTaskMirror {
  /** Parts mirrored so far, by artifact id. */
  readonly #mirrored = new Map<string, number>();
  #lastStatus = '';

  constructor(
    private readonly events: ExecutionEvents,
    private readonly redact: (text: string) => string,
    /** Artifacts the local task already holds (a continued task): a snapshot repeats them. */
    known: readonly Artifact[] = [],
  ) {
    for (const artifact of known) this.#mirrored.set(artifact.artifactId, artifact.parts.length);
  }

  /** Mirrors one frame of the remote turn. */
  frame(frame: StreamResponse): void {
    if (frame.task !== undefined) {
      this.#snapshotArtifacts(frame.task.artifacts ?? []);
      this.#working(frame.task.status);
    } else if (frame.statusUpdate !== undefined) {
      this.#working(frame.statusUpdate.status);
    } else if (frame.artifactUpdate !== undefined) {
      this.#chunk(frame.artifactUpdate.artifact, frame.artifactUpdate.append === true, frame.artifactUpdate.lastChunk === true);
    }
  }

  /** Gives the local task the state the remote task ended the turn in. */
  settle(task: Task): void {
    this.#snapshotArtifacts(task.artifacts ?? []);
    const said = this.#parts(task.status);
    const fallback = `the remote agent ended the task ${task.status.state.replace('TASK_STATE_', '').toLowerCase()} without a message`;
    switch (task.status.state) {
      case 'TASK_STATE_COMPLETED':
        return said === undefined ? this.events.complete() : this.events.complete(said);
      case 'TASK_STATE_FAILED':
        return this.events.fail(said ?? fallback);
      case 'TASK_STATE_REJECTED':
        return this.events.reject(said ?? fallback);
      case 'TASK_STATE_CANCELED':
        return this.events.cancel(said ?? 'the remote agent canceled the task');
      case 'TASK_STATE_INPUT_REQUIRED':
        return this.events.inputRequired(said ?? 'the remote agent needs more input: send another message with this taskId');
      case 'TASK_STATE_AUTH_REQUIRED':
        return this.events.authRequired(said ?? 'the remote agent needs authentication: send another message with this taskId');
      default:
        // The turn only ends in one of the states above; anything else is the remote's bug.
        return this.events.fail(`the remote agent left the task in ${task.status.state}`);
    }
  }

  #working(status: TaskStatus): void {
    if (status.state !== 'TASK_STATE_WORKING') return;
    // A resumed stream repeats the status it was at; say it once.
    const key = JSON.stringify(status.message?.parts ?? null);
    if (key === this.#lastStatus) return;
    this.#lastStatus = key;
    const said = this.#parts(status);
    if (said === undefined) this.events.working();
    else this.events.working(said);
  }

  #chunk(artifact: Artifact, append: boolean, lastChunk: boolean): void {
    const known = this.#mirrored.get(artifact.artifactId);
    const isAppend = append && known !== undefined;
    this.#mirrored.set(artifact.artifactId, (isAppend ? known : 0) + artifact.parts.length);
    this.events.artifact({ ...header(artifact), parts: artifact.parts, append: isAppend, lastChunk });
  }

  #snapshotArtifacts(artifacts: readonly Artifact[]): void {
    for (const artifact of artifacts) {
      const known = this.#mirrored.get(artifact.artifactId) ?? 0;
      if (artifact.parts.length <= known && known > 0) continue;
      const fresh = artifact.parts.slice(known);
      this.#mirrored.set(artifact.artifactId, artifact.parts.length);
      this.events.artifact({ ...header(artifact), parts: fresh, append: known > 0, lastChunk: true });
    }
  }

  /** The status message's parts, with anything that quotes our token removed. */
  #parts(status: TaskStatus): Part[] | undefined {
    const parts = status.message?.parts;
    if (parts === undefined || parts.length === 0) return undefined;
    return parts.map((part) => (typeof part.text === 'string' ? { ...part, text: this.redact(part.text) } : part));
  }
}

function header(artifact: Artifact): { artifactId: string; name?: string; description?: string; metadata?: Artifact['metadata'] } {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name === undefined ? {} : { name: artifact.name }),
    ...(artifact.description === undefined ? {} : { description: artifact.description }),
    ...(artifact.metadata === undefined ? {} : { metadata: artifact.metadata }),
  };
}
