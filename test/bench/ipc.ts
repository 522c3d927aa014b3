import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../codegen/paths.js';

/**
 * A tiny request/response protocol over the Node IPC channel, so that each server under
 * test runs in its own process (its own event loop, its own RSS) while autocannon runs in
 * the parent. Every call and every start-up has a deadline: nothing here waits forever.
 */

/** The operations a child serves: name -> argument and result types. Every child serves close. */
export type Ops<O> = { readonly [K in keyof O]: { readonly args: unknown; readonly result: unknown } } & {
  readonly close: { readonly args: undefined; readonly result: null };
};

export type Handlers<O extends Ops<O>> = { [K in keyof O]: (args: O[K]['args']) => O[K]['result'] | Promise<O[K]['result']> };

interface IpcRequest {
  readonly id: number;
  readonly op: string;
  readonly args: unknown;
}

interface IpcReply {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

interface ReadyMessage {
  readonly ready: true;
  readonly url: string;
}

export interface CpuMemory {
  /** process.cpuUsage() user + system, in microseconds since the process started. */
  readonly cpuMicros: number;
}

export interface MemoryReport {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  /** Peak RSS of the process so far (getrusage maxrss). */
  readonly maxRssBytes: number;
  /** Whether global.gc was available and run before measuring. */
  readonly gcForced: boolean;
}

export interface StoreCounts {
  readonly tasks: number;
  readonly completed: number;
  /** Executors running. */
  readonly active: number;
  /** HTTP requests being answered. */
  readonly requests: number;
  /** Live sessions the hub holds in memory (one per context, kept until idle for sessionIdleMs). */
  readonly sessions: number;
}

export interface FillReport {
  readonly inserted: number;
  readonly seconds: number;
  readonly timedOut: boolean;
}

/** The hub's event-loop delay since the last reading, ms (node:perf_hooks monitorEventLoopDelay, 1 ms resolution). */
export interface LoopDelay {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** What the hub child serves. */
export interface HubOps {
  cpu: { args: undefined; result: CpuMemory };
  /** The event-loop delay since the last call, which starts a new reading. */
  loopDelay: { args: undefined; result: LoopDelay };
  counts: { args: undefined; result: StoreCounts };
  /** Waits (bounded) until the hub is quiet: nothing running, nothing being answered, the task count stable. */
  settle: { args: { timeoutMs: number }; result: StoreCounts & { settled: boolean } };
  /** Creates tasks through hub.runtime.send (the echo executor, durable in SQLite), `concurrency` at a time. */
  fill: { args: { count: number; concurrency: number; timeoutMs: number }; result: FillReport };
  memory: { args: undefined; result: MemoryReport };
  /**
   * Push hubs only: creates `tasks` tasks through hub.runtime.send, registers one webhook
   * config to `url` on each (its Task snapshot is queued), and waits (bounded) until the outbox is empty.
   */
  pushDeliveries: { args: { tasks: number; url: string; timeoutMs: number }; result: PushReport };
  close: { args: undefined; result: null };
}

export interface PushReport {
  readonly delivered: number;
  /** From the first registration until the outbox was empty. */
  readonly seconds: number;
  readonly timedOut: boolean;
  /** Deliveries that needed more than one attempt. */
  readonly retried: number;
}

/** What the bare reference child serves. */
export interface BareOps {
  cpu: { args: undefined; result: CpuMemory };
  configure: { args: { card: string; rpc: string; sse: string }; result: null };
  memory: { args: undefined; result: MemoryReport };
  close: { args: undefined; result: null };
}

/** What a child that is only a server under load serves: the round-robin proxy in front of replicas, the @a2a-js/sdk reference. */
export interface ServerOps {
  cpu: { args: undefined; result: CpuMemory };
  memory: { args: undefined; result: MemoryReport };
  close: { args: undefined; result: null };
}

// ---------------------------------------------------------------- child side

/** Called by a child once it listens: answers requests from the parent and exits when the parent goes away. */
export function serveIpc<O extends Ops<O>>(url: string, handlers: Handlers<O>, onParentGone: () => void): void {
  if (process.send === undefined) throw new Error('this module is started by test/bench/run.ts (it needs an IPC channel)');
  const channel = process.send.bind(process);
  // The parent may be gone (its stdout closed, a kill): then there is nobody to answer.
  const send = (message: IpcReply | ReadyMessage): void => void channel(message, undefined, {}, () => undefined);
  process.on('message', (raw: unknown) => {
    const request = raw as IpcRequest;
    const handler = (handlers as Record<string, ((args: unknown) => unknown) | undefined>)[request.op];
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`unknown op ${request.op}`);
        return handler(request.args);
      })
      .then(
        (value) => send({ id: request.id, ok: true, value } satisfies IpcReply),
        (error: unknown) =>
          send({
            id: request.id,
            ok: false,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          } satisfies IpcReply),
      );
  });
  process.once('disconnect', onParentGone);
  send({ ready: true, url } satisfies ReadyMessage);
}

/**
 * A child that is one node:http server: listens on 127.0.0.1 port 0, serves `handlers` and
 * close (the server, then the process) to the parent, and closes when the parent goes away.
 */
export async function serveHttpChild<O extends Ops<O>>(
  server: Server,
  handlers: Omit<Handlers<O>, 'close'>,
  beforeClose: () => void = () => undefined,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const close = (): Promise<null> => {
    beforeClose();
    return new Promise((resolve) => {
      server.close(() => resolve(null));
      server.closeAllConnections();
    });
  };
  serveIpc<O>(
    `http://127.0.0.1:${port}`,
    {
      ...handlers,
      async close() {
        await close();
        setTimeout(() => process.exit(0), 50);
        return null;
      },
    } as Handlers<O>,
    () => void close().finally(() => process.exit(0)),
  );
}

export function cpuNow(): CpuMemory {
  const usage = process.cpuUsage();
  return { cpuMicros: usage.user + usage.system };
}

export function memoryNow(): MemoryReport {
  const gcForced = typeof globalThis.gc === 'function';
  if (gcForced) {
    // Two passes: the first may only promote what the second can free.
    globalThis.gc?.();
    globalThis.gc?.();
  }
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    gcForced,
  };
}

// ---------------------------------------------------------------- parent side

export interface ChildOptions {
  /** Module next to this one, e.g. 'hub-process.ts'. */
  readonly module: string;
  readonly args?: readonly string[];
  readonly startTimeoutMs: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. --cpu-prof. */
  readonly nodeFlags?: readonly string[];
}

/** A server process started by the benchmark; only ever stopped through its own handle. */
export class ChildServer<O extends Ops<O>> {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #exited = false;
  readonly #exit: Promise<void>;

  private constructor(
    child: ChildProcess,
    readonly url: string,
    readonly name: string,
  ) {
    this.#child = child;
    this.#exit = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        this.#exited = true;
        resolve();
        return;
      }
      child.once('exit', () => {
        this.#exited = true;
        resolve();
      });
    });
    child.on('message', (raw: unknown) => {
      const reply = raw as IpcReply;
      const waiter = this.#pending.get(reply.id);
      if (waiter === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(new Error(`${name}: ${reply.error ?? 'failed'}`));
    });
    void this.#exit.then(() => {
      for (const waiter of this.#pending.values()) waiter.reject(new Error(`${name} exited`));
      this.#pending.clear();
    });
  }

  static start<O extends Ops<O>>(name: string, options: ChildOptions): Promise<ChildServer<O>> {
    const script = fileURLToPath(new URL(options.module, import.meta.url));
    const child = fork(script, [...(options.args ?? [])], {
      cwd: REPO_ROOT,
      execArgv: ['--expose-gc', '--import', 'tsx', ...(options.nodeFlags ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, ...options.env },
    });
    return new Promise<ChildServer<O>>((resolve, reject) => {
      const fail = (error: Error): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error(`${name} did not start within ${options.startTimeoutMs} ms`)), options.startTimeoutMs);
      const onMessage = (raw: unknown): void => {
        const message = raw as Partial<ReadyMessage>;
        if (message.ready !== true || typeof message.url !== 'string') return;
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(new ChildServer<O>(child, message.url, name));
      };
      const onExit = (code: number | null): void => fail(new Error(`${name} exited with code ${code} before it was ready`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', fail);
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  call<K extends keyof O & string>(op: K, args: O[K]['args'], timeoutMs = 30_000): Promise<O[K]['result']> {
    if (this.#exited) return Promise.reject(new Error(`${this.name} has exited`));
    const id = this.#nextId++;
    return new Promise<O[K]['result']>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.name}: ${op} took longer than ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#child.send({ id, op, args } satisfies IpcRequest);
    });
  }

  /** Asks the child to close (it closes its server and store), and kills it if it has not exited in time. */
  async stop(timeoutMs = 15_000): Promise<void> {
    if (this.#exited) return;
    await this.call('close', undefined, timeoutMs).catch(() => undefined);
    const killed = await Promise.race([
      this.#exit.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref()),
    ]);
    if (killed && !this.#exited) {
      this.#child.kill('SIGKILL');
      await this.#exit;
    }
  }

  /** Last resort (watchdog, signals): kill this child at once. */
  kill(): void {
    if (!this.#exited) this.#child.kill('SIGKILL');
  }
}
