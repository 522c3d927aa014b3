import { setTimeout as sleep } from 'node:timers/promises';
import type { LookupFunction } from 'node:net';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import { ConfigError, DEFAULTS, type ResolvedHubConfig } from './config.js';
import { createControlRouter } from './control/control-router.js';
import { notFoundHandler } from './control/landing.js';
import { HubMetrics } from './control/metrics.js';
import { PeerTracker, type Peer } from './control/peers.js';
import { PresetRegistry } from './executors/presets.js';
import { RELAY_PRESET, relayPreset } from './executors/relay-preset.js';
import { STANDARD_PRESET, standardPreset } from './executors/standard/standard-preset.js';
import { WORKER_PRESET, workerPreset } from './executors/worker.js';
import { answerClientError } from './http/client-error.js';
import { createHubPush, type HubPush } from './hub-push.js';
import { createHttpApp } from './http/app.js';
import { cardFastPath } from './http/card-fast-path.js';
import { ConnectionGate, connectionLimitsProblem, resolveConnectionLimits, timeoutOptions } from './http/connection-gate.js';
import type { EndpointObserver, RequestObservation } from './http/endpoint-observer.js';
import { RateLimiter } from './http/rate-limit.js';
import { StreamTracker } from './http/stream-tracker.js';
import { InboundRegistry } from './inbound/inbound-registry.js';
import { ReplicaLink } from './hub-replicas.js';
import { listenError } from './listen-error.js';
import { createLogger, logFunction } from './logging.js';
import { OutboundRegistry } from './outbound/outbound-registry.js';
import { ToolRegistry } from './outbound/tool-registry.js';
import { PushConfigService } from './push/push-configs.js';
import { resolvePushSettings } from './push/push-settings.js';
import { A2AHandler } from './server/a2a-handler.js';
import { MemoryTaskStore } from './store/memory-store.js';
import { folderError, StoreOpenError } from './store/open-errors.js';
import { SqliteTaskStore } from './store/sqlite-store.js';
import { StorageHealth } from './store/storage-health.js';
import { prunes } from './store/retention.js';
import { RetentionSweeper } from './tasks/retention-sweeper.js';
import { PostgresTaskStore } from './store/postgres-store.js';
import { shownUrl } from './support/shown-url.js';
import type { TaskStore } from './store/task-store.js';
import type { LogFunction } from './support/log.js';
import { monotonicClock } from './tasks/frames.js';
import { SessionRegistry } from './tasks/sessions.js';
import { TaskChannels } from './tasks/task-channels.js';
import { TaskRuntime } from './tasks/task-runtime.js';

export interface HubOptions extends Partial<ResolvedHubConfig> {
  /** Use this store instead of opening one from `store`/`dataDir`. */
  readonly taskStore?: TaskStore;
  readonly presets?: PresetRegistry;
  readonly logger?: Logger;
  /** Environment for `authTokenEnv` and `bearerTokenEnv` lookups (default: process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** Extra routers (the control API) to mount. */
  readonly routers?: (hub: HubParts) => readonly Router[];
  /**
   * The resolver for webhook hosts, when a push config is registered and when a delivery connects
   * (default: node:dns lookup). For tests, and for a hub that must resolve through its own DNS.
   */
  readonly lookup?: LookupFunction;
  /**
   * Sets up the inbound instances before the hub listens (`serve --agents`: the declared agents),
   * in place of the `default` echo instance a data dir's first start creates. A throw stops the
   * start, with the data dir released.
   */
  readonly setUpInstances?: (parts: Pick<HubParts, 'inbounds' | 'presets'>) => Promise<void> | void;
}

/** The pieces a running hub is made of, for the control API and for tests. */
export interface HubParts {
  readonly config: ResolvedHubConfig;
  readonly store: TaskStore;
  readonly runtime: TaskRuntime;
  readonly channels: TaskChannels;
  readonly sessions: SessionRegistry;
  readonly inbounds: InboundRegistry;
  /** Connections to remote agents (docs/outbound.md). */
  readonly outbounds: OutboundRegistry;
  /** The remote skills of the connected outbounds as model tools: `hub.tools.call(name, { prompt })`. */
  readonly tools: ToolRegistry;
  readonly presets: PresetRegistry;
  readonly rateLimiter: RateLimiter | undefined;
  readonly streams: StreamTracker;
  /** Webhook delivery (docs/push.md): `push.dispatcher.retryNow(taskId, configId)` after registering a config outside the push methods. */
  readonly push: HubPush;
  /** Whether the task store takes writes now (readiness, metrics). */
  readonly storage: StorageHealth;
  /** Deletes the terminal tasks instances' retentions no longer keep (docs/server.md, Retention). */
  readonly retention: RetentionSweeper;
  readonly log: LogFunction;
}

export interface Hub extends HubParts {
  readonly server: Server;
  /** e.g. http://127.0.0.1:3080 */
  readonly url: string;
  /** Stops accepting, lets running tasks finish within the grace period, closes the store. */
  close(): Promise<void>;
}

/**
 * Starts a hub: opens the store, settles tasks a crash left unfinished, creates the default
 * instance on first start, and listens. Resolves once the port is bound.
 */
export async function startHub(options: HubOptions = {}): Promise<Hub> {
  const config: ResolvedHubConfig = { ...DEFAULTS, ...options };
  const connectionLimits = resolveConnectionLimits(config.connections, config.trustProxy);
  const limitsProblem = connectionLimitsProblem(connectionLimits);
  if (limitsProblem !== undefined) throw new ConfigError(`invalid configuration: ${limitsProblem}`);
  const gate = new ConnectionGate(connectionLimits);
  const logger = options.logger ?? createLogger(config.logLevel);
  const log = logFunction(logger);
  const now = monotonicClock();
  const store = options.taskStore ?? (await openStore(config));
  const channels = new TaskChannels();
  const sessions = new SessionRegistry(config.sessionIdleMs, now, config.maxSessions);
  const presets = options.presets ?? new PresetRegistry();
  const recovered = await TaskRuntime.recover(store, now);
  if (recovered.length > 0) log('warn', 'settled tasks left running by an earlier process as FAILED', { count: recovered.length });
  // Set once the registries exist; their changes and this runtime's cancels are told to the other replicas.
  let replicas: ReplicaLink | undefined;
  const outbounds = await OutboundRegistry.open({
    store,
    now,
    log,
    changed: () => replicas?.configChanged(),
    ...(options.env ? { env: options.env } : {}),
    ...(config.outbound ? { settings: config.outbound } : {}),
  });
  const tools = new ToolRegistry(outbounds);
  const rateLimiter = config.rateLimit === false ? undefined : new RateLimiter(config.rateLimit);
  const streams = new StreamTracker();
  const storage = new StorageHealth({
    location: options.taskStore === undefined ? storeLocation(config) : 'the task store given to startHub',
    probe: () => store.probeWrite(),
    log,
  });
  const metrics = new HubMetrics({
    storage,
    connections: gate,
    tasksByState: () => store.countByState(),
    openStreams: () => streams.count,
    sessions: () => sessions.list().length,
    rateLimitRejections: () => rateLimiter?.rejections ?? 0,
    pushPending: () => store.pendingDeliveries(),
  });
  const push = await withStoreClosedOnError(store, options.taskStore === undefined, () =>
    createHubPush({
      store,
      settings: config.push,
      env: options.env ?? process.env,
      log,
      ...(options.lookup ? { lookup: options.lookup } : {}),
      // Read when a delivery is due, from the registry created below (its instances can change at run time).
      pushEnabled: (instanceId) => inbounds.get(instanceId)?.pushNotifications !== false,
      onAttempt: (attempt) => metrics.recordPushAttempt(attempt.outcome, attempt.latencyMs / 1000),
    }),
  );
  const runtime = new TaskRuntime({
    store,
    channels,
    sessions,
    now,
    log,
    tools,
    onCommitted: (tasks) => push.dispatcher.committed(tasks),
    onSettled: (taskId) => replicas?.settled(taskId),
    onOutcomes: (outcomes) => storage.record(outcomes),
    shared: store.signals !== undefined,
  });
  // The relay preset reads an instance's relayTo when a message arrives, from the registry
  // created next: that one needs the presets first, to check instances against them.
  if (presets.get(RELAY_PRESET) === undefined)
    presets.register(relayPreset({ outbounds, meta: store, relayToOf: (id) => inbounds.get(id)?.relayTo }));
  if (presets.get(STANDARD_PRESET) === undefined)
    presets.register(
      standardPreset({
        instanceOf: (id) => inbounds.get(id),
        ...(options.env ? { env: options.env } : {}),
        ...(config.outbound?.urlPolicy ? { urlPolicy: config.outbound.urlPolicy } : {}),
      }),
    );
  // Its boards hold this hub's tasks for their workers, so each hub has its own.
  if (presets.get(WORKER_PRESET) === undefined) presets.register(workerPreset());
  const inbounds = await InboundRegistry.open({
    store,
    presets,
    now,
    log,
    // A relay instance's card follows its remote's, so the table is rebuilt when connections change.
    revision: () => outbounds.version,
    wellKnownInstance: config.wellKnownInstance,
    changed: () => replicas?.configChanged(),
    ...(options.taskStore === undefined && config.store === 'sqlite' ? { dataDir: resolve(config.dataDir) } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(config.provider ? { provider: config.provider } : {}),
  });
  if (options.setUpInstances === undefined) await inbounds.ensureDefault();
  else {
    try {
      await options.setUpInstances({ inbounds, presets });
      await inbounds.ensureDefault({ create: false });
    } catch (error) {
      sessions.close();
      await runtime.close();
      if (options.taskStore === undefined) await store.close();
      throw error;
    }
  }
  if (store.signals !== undefined) {
    const signals = store.signals;
    // A delivery is claimed for one lease: an attempt that outlasts it may be started again by another replica.
    const pushTimeoutMs = resolvePushSettings(config.push).timeoutMs;
    if (pushTimeoutMs >= config.databaseLeaseMs)
      log('warn', 'push.timeoutMs is not below databaseLeaseMs: a slow webhook may get a delivery twice, from two replicas', {
        pushTimeoutMs,
        databaseLeaseMs: config.databaseLeaseMs,
      });
    replicas = await withStoreClosedOnError(store, options.taskStore === undefined, () =>
      ReplicaLink.join({ signals, channels, runtime, inbounds, outbounds, log }),
    );
  }
  const retention = new RetentionSweeper({
    store,
    everyMs: config.retentionSweepMs,
    rules: () =>
      inbounds.list().flatMap((instance) => (prunes(instance.retention) ? [{ instanceId: instance.id, rule: instance.retention }] : [])),
    log,
  });
  const wellKnown = inbounds.wellKnownInstance;
  if (wellKnown !== undefined && inbounds.get(wellKnown) === undefined)
    log('warn', `wellKnownInstance names "${wellKnown}", which is no inbound instance: /.well-known/agent-card.json answers 404`, {
      wellKnownInstance: wellKnown,
    });
  const parts: HubParts = {
    config,
    store,
    runtime,
    channels,
    sessions,
    inbounds,
    outbounds,
    tools,
    presets,
    rateLimiter,
    streams,
    push,
    storage,
    retention,
    log,
  };
  const peers = new PeerTracker(now);
  const control = createControlRouter({
    deps: { ...parts, peers, retryPush: (taskId, configId) => push.dispatcher.retryNow(taskId, configId) },
    metrics,
    bodyLimitBytes: Math.min(config.bodyLimitBytes, 1024 * 1024),
    bodyIdleTimeoutMs: connectionLimits.bodyIdleTimeoutMs,
    trustProxy: config.trustProxy,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    selfCheck: config.selfCheck,
    log,
  });

  const pushConfigs = new PushConfigService({
    store,
    tasks: runtime,
    sealer: push.sealer,
    settings: push.settings,
    now,
    retryNow: (taskId, configId) => push.dispatcher.retryNow(taskId, configId),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  const handler = new A2AHandler(runtime, channels, store, {
    finalTask: config.streamFinalTask,
    push: pushConfigs,
    shared: store.signals !== undefined,
    log,
  });
  // Set by close(): a probe on a connection still open during the grace period hears the hub is going.
  let shuttingDown = false;
  const app = createHttpApp({
    readiness: async () => (shuttingDown ? 'the hub is shutting down' : ((await storeProblem(store)) ?? (await storage.problem()))),
    directory: inbounds,
    handler,
    bodyLimitBytes: config.bodyLimitBytes,
    bodyIdleTimeoutMs: connectionLimits.bodyIdleTimeoutMs,
    version: { absent: config.absentVersion },
    ...(rateLimiter ? { rateLimiter } : {}),
    selfCheck: config.selfCheck,
    streams,
    sseHeartbeatMs: config.sseHeartbeatMs,
    trustProxy: config.trustProxy,
    proxyHops: config.proxyHops,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    cardMaxAgeSeconds: config.cardMaxAgeSeconds,
    routers: [control, ...(options.routers?.(parts) ?? [])],
    notFound: notFoundHandler({ inbounds, trustProxy: config.trustProxy, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}) }),
    observer: endpointObserver(peers, metrics),
    log,
  });
  const handle = app.callback();
  const card = cardFastPath({
    directory: inbounds,
    cardMaxAgeSeconds: config.cardMaxAgeSeconds,
    version: { absent: config.absentVersion },
    trustProxy: config.trustProxy,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
  });
  const server = createServer(timeoutOptions(connectionLimits), (request, response) => {
    // A refused connection was answered when it opened; what Node still parses on it is dropped.
    if (gate.refused(request.socket)) return void request.socket.destroy();
    if (!card(request, response)) void handle(request, response);
  });
  gate.attach(server);
  server.keepAliveTimeout = 5000;
  server.on('clientError', answerClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Release the data dir's exclusive lock, so the same process may start a hub on another port;
    // a store the caller passed in is the caller's to close (it may start a hub on it again).
    sessions.close();
    await runtime.close();
    if (options.taskStore === undefined) await store.close();
    throw listenError(error, config.host, config.port);
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // Only now: a connection may point at one of this hub's own instances.
  outbounds.start();
  push.dispatcher.start();
  retention.start();
  // Once serving. A store replicas share: a replica may die at any time, and its tasks' leases
  // lapse; settle them here too. Its push deliveries wait in the outbox, which this replica's
  // dispatcher is not told of: look at it too.
  const recovery =
    store.recoverEveryMs === undefined
      ? undefined
      : setInterval(() => {
          void settleLapsed(store, now, log);
          push.dispatcher.kick();
        }, store.recoverEveryMs);
  recovery?.unref();
  let closing: Promise<void> | undefined;
  return {
    ...parts,
    server,
    url: `http://${host}:${address.port}`,
    close() {
      shuttingDown = true;
      closing ??= (async () => {
        // Still serving, while readiness says 503: a load balancer that only probes takes this replica out first.
        if (config.shutdownDrainMs > 0) await sleep(config.shutdownDrainMs);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await runtime.shutdown(config.shutdownGraceMs);
        // Tasks had their grace period; tool calls still running now are aborted, and reconnects stop.
        outbounds.close();
        // Workers have been told their tasks are released; their feeds would otherwise hold the drain below.
        for (const preset of presets.list()) preset.close?.();
        // Every task is settled now; once that is committed, every stream of a task has its last
        // frame, and the subscriptions still open wait on interrupted tasks: end them too.
        await runtime.committed();
        handler.endStreams();
        await streams.drain(1000);
        // Streams of finished tasks have ended; what is left are idle keep-alives and
        // streams whose client never reads. Neither may hold the process open.
        server.closeAllConnections();
        await stopped;
        sessions.close();
        await runtime.close();
        // After the runtime's last commit, so its deliveries are queued; before the store closes,
        // so attempts in flight can record how they ended.
        await push.dispatcher.close();
        clearInterval(recovery);
        await retention.close();
        replicas?.close();
        await store.close();
      })();
      return closing;
    },
  };
}

/** Feeds each A2A endpoint request into the peer list and the metrics. */
function endpointObserver(peers: PeerTracker, metrics: HubMetrics): EndpointObserver {
  return { request: (socket, agentId) => new EndpointRequest(peers.seen(socket, agentId), metrics) };
}

/** One request's observation; a class, not closures, since every request makes one. */
class EndpointRequest implements RequestObservation {
  readonly #started = process.hrtime.bigint();

  constructor(
    private readonly peer: Peer,
    private readonly metrics: HubMetrics,
  ) {}

  done(method: string, outcome: string): void {
    this.metrics.record(method, outcome, Number(process.hrtime.bigint() - this.#started) / 1e9);
  }

  streamOpened(): () => void {
    const { peer } = this;
    peer.openStreams += 1;
    return () => {
      peer.openStreams -= 1;
    };
  }
}

/** A start-up step that may refuse the configuration (a bad push key): the data dir's lock is released first. */
async function withStoreClosedOnError<T>(store: TaskStore, ownStore: boolean, step: () => T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (ownStore) await store.close();
    throw error;
  }
}

/** The store the configuration names, opened as a hub opens it (for `a2a-hub db prune`). */
export function openTaskStore(config: ResolvedHubConfig): Promise<TaskStore> {
  return openStore(config);
}

async function openStore(config: ResolvedHubConfig): Promise<TaskStore> {
  if (config.store === 'memory') return new MemoryTaskStore({ eventLogSize: config.eventLogSize });
  if (config.store === 'postgres') return openPostgres(config);
  try {
    mkdirSync(config.dataDir, { recursive: true });
  } catch (error) {
    throw withDataDirHint(folderError(error, config.dataDir, 'the data dir'));
  }
  try {
    // The hub owns its data dir: exclusive locking is faster, and stops a second hub sharing it.
    return SqliteTaskStore.open(join(config.dataDir, 'a2a-hub.sqlite'), { exclusive: true, eventLogSize: config.eventLogSize });
  } catch (error) {
    throw withDataDirHint(error);
  }
}

async function openPostgres(config: ResolvedHubConfig): Promise<TaskStore> {
  const url = config.databaseUrl ?? '';
  try {
    return await PostgresTaskStore.open({
      url,
      poolSize: config.databasePoolSize,
      eventLogSize: config.eventLogSize,
      leaseMs: config.databaseLeaseMs,
    });
  } catch (error) {
    // node-postgres names the host and the reason, never the password; the URL is shown without it.
    throw new StoreOpenError(
      `cannot use the PostgreSQL database ${shownUrl(url)}: ${error instanceof Error ? error.message : String(error)}; check databaseUrl (A2A_HUB_DATABASE_URL) and that the server is up`,
      { cause: error },
    );
  }
}

/** Settles the tasks whose replica stopped renewing their leases, saying how many; a store error is logged, and tried again next time. */
async function settleLapsed(store: TaskStore, now: () => string, log: LogFunction): Promise<void> {
  try {
    const settled = await TaskRuntime.recover(store, now);
    if (settled.length > 0)
      log('warn', 'settled tasks of a replica that stopped renewing their leases as FAILED', { count: settled.length });
  } catch (error) {
    log('error', 'could not settle the tasks of stopped replicas', { error: String(error) });
  }
}

/** Where the hub keeps its tasks, for banners: the data dir, memory, or the database without its password. */
export function storeLocation(config: Pick<ResolvedHubConfig, 'store' | 'dataDir' | 'databaseUrl'>): string {
  if (config.store === 'memory') return 'in memory (lost on exit)';
  if (config.store === 'postgres') return `PostgreSQL ${shownUrl(config.databaseUrl ?? '')}`;
  return config.dataDir;
}

/** A data dir the hub cannot use is the user's to fix; any other error is left as it is. */
function withDataDirHint(error: unknown): unknown {
  if (!(error instanceof StoreOpenError)) return error;
  return new StoreOpenError(`${error.message}; fix that, or choose another data dir with --data-dir or A2A_HUB_DATA_DIR`, { cause: error });
}

/** Why the store cannot answer now, for the readiness endpoint; undefined when it can. */
async function storeProblem(store: Pick<TaskStore, 'ping'>): Promise<string | undefined> {
  try {
    await store.ping();
    return undefined;
  } catch (error) {
    return `the task store does not answer: ${error instanceof Error ? error.message : String(error)}`;
  }
}
