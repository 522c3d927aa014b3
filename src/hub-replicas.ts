import type { InboundRegistry } from './inbound/inbound-registry.js';
import type { OutboundRegistry } from './outbound/outbound-registry.js';
import type { ReplicaSignal, ReplicaSignals } from './store/task-store.js';
import type { LogFunction } from './support/log.js';
import type { TaskChannels } from './tasks/task-channels.js';
import type { TaskRuntime } from './tasks/task-runtime.js';

/**
 * How often streams following tasks other replicas run read the log unannounced: seldom while
 * signals are heard (a NOTIFY is only missed when the listening connection drops, which the
 * resync covers), often while they are not.
 */
export const POLL_WHILE_LISTENING_MS = 2000;
export const POLL_WHILE_DEAF_MS = 250;

export interface ReplicaParts {
  readonly signals: ReplicaSignals;
  readonly channels: TaskChannels;
  readonly runtime: TaskRuntime;
  readonly inbounds: InboundRegistry;
  readonly outbounds: OutboundRegistry;
  readonly log: LogFunction;
}

/**
 * This hub as one of several replicas sharing a store: what it hears from the others turns into
 * frames for its streams (read from the log), stopped executors (a task settled elsewhere) and
 * reloaded configuration; and its polling covers the signals it may miss.
 */
export class ReplicaLink {
  #poll: NodeJS.Timeout | undefined;
  #reloading: Promise<void> = Promise.resolve();
  #closed = false;
  #checking = false;
  #checkFailed = false;

  private constructor(private readonly parts: ReplicaParts) {}

  /** Listens, and starts polling; resolves once signals sent from now on are heard. */
  static async join(parts: ReplicaParts): Promise<ReplicaLink> {
    const link = new ReplicaLink(parts);
    await parts.signals.listen((signal) => link.#heard(signal));
    link.#schedulePoll();
    return link;
  }

  /** Tells the other replicas that this one changed the stored configuration. */
  configChanged(): void {
    const { signals, log } = this.parts;
    signals.send({ kind: 'config', from: signals.id }).catch((error: unknown) => {
      // The others still reload when their listening connection comes back, or on restart.
      log('warn', 'could not tell the other replicas of a configuration change', { error: String(error) });
    });
  }

  /** Tells the other replicas that this one settled a task one of them may be running. */
  settled(taskId: string): void {
    this.parts.signals.send({ kind: 'settled', taskId }).catch((error: unknown) => {
      this.parts.log('warn', 'could not tell the other replicas of a canceled task', { taskId, error: String(error) });
    });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#poll);
  }

  #heard(signal: ReplicaSignal): void {
    const { channels, runtime, signals } = this.parts;
    switch (signal.kind) {
      case 'frame':
        return channels.announce(signal.taskId, signal.seq);
      case 'settled':
        return runtime.settledElsewhere(signal.taskId);
      case 'config':
        if (signal.from !== signals.id) this.#reload();
        return;
      case 'resync':
        this.parts.log('info', 'listening to the other replicas again: catching up on what was missed', {});
        channels.announceAll();
        void this.#checkRunning();
        this.#reload();
        return;
    }
  }

  /** One reload at a time, in order: a change heard during a reload is read by the next. */
  #reload(): void {
    const { inbounds, outbounds, log } = this.parts;
    this.#reloading = this.#reloading.then(async () => {
      if (this.#closed) return;
      try {
        await inbounds.reload();
        await outbounds.reload();
      } catch (error) {
        log('error', 'could not reload the configuration another replica changed', { error: String(error) });
      }
    });
  }

  #schedulePoll(): void {
    if (this.#closed) return;
    this.#poll = setTimeout(
      () => {
        this.parts.channels.announceAll();
        // Deaf, it would not hear a cancel another replica wrote: it looks for its tasks' ends itself.
        if (!this.parts.signals.listening) void this.#checkRunning();
        this.#schedulePoll();
      },
      this.parts.signals.listening ? POLL_WHILE_LISTENING_MS : POLL_WHILE_DEAF_MS,
    );
    this.#poll.unref();
  }

  /** One check at a time; a database that does not answer is logged once until it does again. */
  async #checkRunning(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      await this.parts.runtime.checkRunning();
      this.#checkFailed = false;
    } catch (error) {
      if (!this.#checkFailed) this.parts.log('warn', 'could not check running tasks', { error: String(error) });
      this.#checkFailed = true;
    } finally {
      this.#checking = false;
    }
  }
}
