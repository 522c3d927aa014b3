import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import type { A2AClient } from '../client/a2a-client.js';
import type { OutboundConfig } from './outbound-config.js';

export type OutboundState = 'connecting' | 'connected' | 'error' | 'disabled';

export type ConnectOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** A connection's life as the registry shows it. */
export interface ConnectionStatus {
  readonly state: OutboundState;
  /** Why the last attempt failed; set exactly when state is error. */
  readonly reason: string | undefined;
  readonly client: A2AClient | undefined;
  /** The last card read, kept while in error. */
  readonly card: AgentCard | undefined;
  /** Its signal is handed to tool calls and aborts when the connection stops. */
  readonly scope: { readonly signal: AbortSignal };
}

/** What the supervisor needs of the registry, which owns the configurations. */
export interface SupervisorHost {
  /** The connection's configuration now; undefined once it is removed. */
  config(id: string): OutboundConfig | undefined;
  /** Reads the card and checks the endpoint with the connection's settings; `signal` aborts the check. */
  connect(config: OutboundConfig, signal: AbortSignal): Promise<A2AClient>;
  /** Why a connect failed, in words fit for a row and a log (no token in them). */
  failure(error: unknown, config: OutboundConfig): string;
  /** A connection's state changed. */
  changed(): void;
  log(level: 'info' | 'warn', message: string, config: OutboundConfig, details?: Record<string, unknown>): void;
}

export interface SupervisorOptions {
  readonly host: SupervisorHost;
  readonly reconnectMinMs: number;
  readonly reconnectMaxMs: number;
}

/** The run-time half of a connection; the persisted half is its OutboundConfig. */
interface Live extends ConnectionStatus {
  state: OutboundState;
  reason: string | undefined;
  client: A2AClient | undefined;
  card: AgentCard | undefined;
  /** Increases with every attempt and every stop: an attempt that is no longer the latest is ignored. */
  attempt: number;
  pending: { readonly attempt: number; readonly outcome: Promise<ConnectOutcome> } | undefined;
  attemptController: AbortController | undefined;
  retryTimer: NodeJS.Timeout | undefined;
  retryDelayMs: number;
  /** Replaced after each stop, so that a stop ends only the calls that began before it. */
  scope: AbortController;
}

/**
 * Each outbound connection's state machine: connecting → connected | error(reason), or
 * disabled. A connection in error is retried in the background with a delay that doubles up
 * to a cap; a newer attempt, or a stop, supersedes the one in flight.
 */
export class ConnectionSupervisor {
  readonly #host: SupervisorHost;
  readonly #reconnectMinMs: number;
  readonly #reconnectMaxMs: number;
  readonly #live = new Map<string, Live>();
  #closed = false;

  constructor(options: SupervisorOptions) {
    this.#host = options.host;
    this.#reconnectMinMs = options.reconnectMinMs;
    this.#reconnectMaxMs = options.reconnectMaxMs;
  }

  get closed(): boolean {
    return this.#closed;
  }

  status(id: string): ConnectionStatus | undefined {
    return this.#live.get(id);
  }

  /** Starts supervising a connection that is not connected (yet). */
  add(id: string, state: 'connecting' | 'disabled'): void {
    this.#live.set(id, this.#newLive(state));
  }

  /** Starts supervising a connection whose client connected already. */
  addConnected(id: string, client: A2AClient): void {
    const live = this.#newLive('connected');
    live.client = client;
    live.card = client.card;
    this.#live.set(id, live);
  }

  /**
   * A fresh connect attempt, the backoff reset. A newer attempt (or a stop) supersedes this
   * one: its result is then dropped, and a caller still waiting gets the newer attempt's
   * outcome instead.
   */
  connect(config: OutboundConfig): Promise<ConnectOutcome> {
    return this.#connect(config, true);
  }

  disable(id: string, why: string): void {
    const live = this.#liveOf(id);
    this.#stop(live, why);
    live.state = 'disabled';
    live.reason = undefined;
  }

  remove(id: string, why: string): void {
    const live = this.#live.get(id);
    if (live !== undefined) this.#stop(live, why);
    this.#live.delete(id);
  }

  /** Stops every attempt, retry timer and tool call, for good. */
  close(why: string): void {
    this.#closed = true;
    for (const live of this.#live.values()) this.#stop(live, why);
  }

  #connect(config: OutboundConfig, fresh: boolean): Promise<ConnectOutcome> {
    const live = this.#liveOf(config.id);
    clearTimeout(live.retryTimer);
    live.retryTimer = undefined;
    live.attemptController?.abort();
    if (fresh) live.retryDelayMs = this.#reconnectMinMs;
    const attempt = ++live.attempt;
    const controller = new AbortController();
    live.attemptController = controller;
    if (live.state !== 'connected') {
      // A connected connection keeps serving its tools with the old client until the new one is there.
      live.state = 'connecting';
      live.reason = undefined;
      this.#host.changed();
    }
    const outcome = this.#attempt(config, live, attempt, controller);
    live.pending = { attempt, outcome };
    return outcome;
  }

  async #attempt(config: OutboundConfig, live: Live, attempt: number, controller: AbortController): Promise<ConnectOutcome> {
    let client: A2AClient | undefined;
    let failure: string | undefined;
    try {
      client = await this.#host.connect(config, controller.signal);
    } catch (error) {
      failure = this.#host.failure(error, config);
    }
    if (live.attemptController === controller) live.attemptController = undefined;
    if (attempt !== live.attempt || this.#closed) {
      const newer = live.pending;
      if (newer !== undefined && newer.attempt > attempt) return newer.outcome;
      return {
        ok: false,
        reason: this.#closed ? 'the hub is shutting down' : `outbound connection "${config.name}" was disabled or removed meanwhile`,
      };
    }
    live.pending = undefined;
    const previous = { state: live.state, reason: live.reason };
    if (client !== undefined) {
      live.state = 'connected';
      live.reason = undefined;
      live.client = client;
      live.card = client.card;
      live.retryDelayMs = this.#reconnectMinMs;
      if (previous.state !== 'connected') this.#host.log('info', 'outbound connection connected', config);
      this.#host.changed();
      return { ok: true };
    }
    const reason = failure ?? 'unknown error';
    live.state = 'error';
    live.reason = reason;
    live.client = undefined;
    if (previous.state !== 'error' || previous.reason !== reason)
      this.#host.log('warn', 'outbound connection failed to connect; retrying in the background', config, { reason });
    this.#scheduleRetry(config.id, live);
    this.#host.changed();
    return { ok: false, reason };
  }

  #scheduleRetry(id: string, live: Live): void {
    if (this.#closed || this.#host.config(id)?.enabled !== true) return;
    const delay = live.retryDelayMs;
    live.retryDelayMs = Math.min(delay * 2, this.#reconnectMaxMs);
    live.retryTimer = setTimeout(() => {
      live.retryTimer = undefined;
      const config = this.#host.config(id);
      if (this.#live.get(id) === live && config !== undefined) void this.#connect(config, false);
    }, delay);
    // A pending retry must not keep a process alive that has nothing else to do.
    live.retryTimer.unref();
  }

  /** Ends everything in flight for a connection: its attempt, its retry and the tool calls using it. */
  #stop(live: Live, why: string): void {
    live.attempt += 1;
    live.pending = undefined;
    clearTimeout(live.retryTimer);
    live.retryTimer = undefined;
    live.attemptController?.abort();
    live.attemptController = undefined;
    live.scope.abort(new Error(why));
    live.scope = new AbortController();
    live.client = undefined;
  }

  #liveOf(id: string): Live {
    let live = this.#live.get(id);
    if (live === undefined) {
      live = this.#newLive('disabled');
      this.#live.set(id, live);
    }
    return live;
  }

  #newLive(state: OutboundState): Live {
    return {
      state,
      reason: undefined,
      client: undefined,
      card: undefined,
      attempt: 0,
      pending: undefined,
      attemptController: undefined,
      retryTimer: undefined,
      retryDelayMs: this.#reconnectMinMs,
      scope: new AbortController(),
    };
  }
}
