import type { Artifact, Message, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { applyChunk, withParts, type AssembledArtifact } from '../store/artifact-chunks.js';
import type { TaskContent } from '../store/task-view.js';

/**
 * A task this run created, as the runtime is storing it: the same status, messages and
 * assembled artifacts the store will hold once the writes are committed. The blocking
 * SendMessage answer is built from it instead of reading the task back.
 */
export class LiveTask {
  #status: TaskStatus;
  readonly #history: Message[];
  readonly #artifacts = new Map<string, AssembledArtifact>();

  constructor(
    readonly id: string,
    readonly contextId: string,
    status: TaskStatus,
    message: Message,
    readonly metadata: Record<string, unknown> | undefined,
  ) {
    this.#status = status;
    this.#history = [message];
  }

  /** A final status's message is a turn of the conversation, as the runtime stores it. */
  setStatus(status: TaskStatus, final: boolean): void {
    this.#status = status;
    if (final && status.message !== undefined) this.#history.push(status.message);
  }

  putArtifact(artifact: Artifact, append: boolean): void {
    applyChunk(this.#artifacts, artifact, append);
  }

  content(): TaskContent {
    return {
      id: this.id,
      contextId: this.contextId,
      status: this.#status,
      metadata: this.metadata,
      history: [...this.#history],
      artifacts: [...this.#artifacts.values()].map(({ header, parts }) => withParts(header, parts)),
    };
  }
}
