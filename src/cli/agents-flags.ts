import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { CONTROL } from '../protocol/control-schema.js';
import { checkValue } from '../protocol/validation.js';
import { violationPhrases } from '../protocol/violations.js';
import { ConfigError } from '../config.js';
import {
  AgentsFileError,
  readAgentsFile,
  readSingleAgentFile,
  reconcileAgents,
  type DeclaredAgent,
  type ReadAgents,
  type ReconcileSummary,
} from '../declared-agents.js';
import type { HubParts } from '../hub.js';

/** The flags of `serve` that declare agents (docs/server.md: Declaring agents in a file; One agent, DataAgent style). */
export interface AgentsFlags {
  agents?: string;
  agentsExclusive?: boolean;
  watch?: boolean;
  agent?: string;
  jsonrpcPath?: string;
  restPath?: string;
  authTokenEnv?: string;
  authToken?: string;
}

/** Seed 002 §1.2's paths, the one agent's unless its file or a flag says otherwise. */
const SEED_002_PATHS = { jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' } as const;

/** How long a burst of file events (an editor's save) is waited out before the file is read. */
const WATCH_DEBOUNCE_MS = 200;

export function addAgentsOptions(command: Command): Command {
  return command
    .option('--agents <file>', 'YAML or JSON file of the agents to serve, reconciled with the stored ones [env A2A_HUB_AGENTS]')
    .option('--agents-exclusive', 'disable stored instances the file does not declare')
    .option('--watch', 'apply edits of the agents file as they are saved (SIGHUP applies them too)')
    .option('--agent <file>', 'serve one agent (our declaration, or seed 002 DataAgent YAML) at /.well-known/agent-card.json')
    .option('--jsonrpc-path <path>', `with --agent: the JSON-RPC path (default ${SEED_002_PATHS.jsonRpcPath})`)
    .option('--rest-path <path>', `with --agent: the HTTP+JSON base (default ${SEED_002_PATHS.restPath})`)
    .option('--auth-token-env <name>', 'with --agent: the environment variable holding the bearer token every request needs')
    .option('--auth-token <token>', 'with --agent: the bearer token itself (visible in ps; prefer --auth-token-env)');
}

/** Where the declared agents come from, read again on every reload. */
export interface AgentsSource {
  /** The file as given. */
  readonly file: string;
  /** `serve --agent`: one agent, the hub's well-known card. */
  readonly single: boolean;
  readonly exclusive: boolean;
  readonly watch: boolean;
  /** Reads and checks the file (and the flags that complete it); throws AgentsFileError or ConfigError. */
  read(): ReadAgents;
}

/** The agents source the flags describe, or undefined when they declare none; a flag out of place is a ConfigError. */
export function agentsSourceOf(flags: AgentsFlags, env: NodeJS.ProcessEnv, warn: (message: string) => void): AgentsSource | undefined {
  if (flags.agents !== undefined && flags.agent !== undefined) {
    throw new ConfigError(`give --agents (a file of agents) or --agent (one agent), not both`);
  }
  const singleOnly = (['jsonrpcPath', 'restPath', 'authTokenEnv', 'authToken'] as const).filter((flag) => flags[flag] !== undefined);
  if (flags.agent === undefined && singleOnly.length > 0) {
    throw new ConfigError(
      `${singleOnly.map(flagName).join(', ')} ${singleOnly.length === 1 ? 'goes' : 'go'} with --agent FILE, the one-agent form`,
    );
  }
  // The variable stands in for --agents, and gives way to --agent.
  const agentsFile = flags.agents ?? (flags.agent === undefined ? env['A2A_HUB_AGENTS'] || undefined : undefined);
  if (agentsFile === undefined && flags.agent === undefined) {
    const loose = (['agentsExclusive', 'watch'] as const).filter((flag) => flags[flag] === true);
    if (loose.length > 0) throw new ConfigError(`${loose.map(flagName).join(', ')} needs --agents FILE or --agent FILE`);
    return undefined;
  }
  const options = { exclusive: flags.agentsExclusive === true, watch: flags.watch === true };
  if (agentsFile !== undefined)
    return { file: agentsFile, single: false, ...options, read: () => withEnvNotes(readAgentsFile(agentsFile), env) };
  const file = flags.agent as string;
  if (flags.authToken !== undefined && flags.authTokenEnv !== undefined) {
    throw new ConfigError('give --auth-token-env NAME or --auth-token TOKEN, not both');
  }
  if (flags.authToken !== undefined && flags.authToken.trim() === '') {
    // `--auth-token "$TOKEN"` with TOKEN unset: serving with no auth at all would be the wrong way to fail.
    throw new ConfigError('--auth-token is empty: give the token (better: --auth-token-env NAME), or leave the flag out to require none');
  }
  if (flags.authToken !== undefined) {
    warn(
      '--auth-token puts the token on the command line, where other users of this machine can read it (ps, /proc): put it in an environment variable and pass --auth-token-env NAME instead. The hub stores only its SHA-256 digest.',
    );
  }
  if (flags.authTokenEnv !== undefined && !env[flags.authTokenEnv]) {
    warn(`--auth-token-env ${flags.authTokenEnv}: that variable is not set, so every request but the card's is refused (401) until it is`);
  }
  return { file, single: true, ...options, read: () => withEnvNotes(withCommandLine(readSingleAgentFile(file), flags), env) };
}

function flagName(flag: keyof AgentsFlags): string {
  return `--${flag.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** A model key read from a variable that is not set fails every turn: worth saying at start rather than at the first message. */
function withEnvNotes(read: ReadAgents, env: NodeJS.ProcessEnv): ReadAgents {
  const unset = read.agents.flatMap(({ declaration, at }) => {
    const name = declaration.model?.apiKeyEnv;
    return name === undefined || env[name]
      ? []
      : [`${at}: agent "${declaration.id}" reads its model's API key from ${name}, which is not set: its turns fail until it is`];
  });
  return unset.length === 0 ? read : { ...read, notes: [...read.notes, ...unset] };
}

/** The one agent with the flags that complete it: seed 002's paths unless its file or a flag names others, and its token. */
function withCommandLine(read: ReadAgents, flags: AgentsFlags): ReadAgents {
  const [agent] = read.agents;
  if (agent === undefined) return read;
  const given = {
    ...(flags.jsonrpcPath === undefined ? {} : { jsonRpcPath: flags.jsonrpcPath }),
    ...(flags.restPath === undefined ? {} : { restPath: flags.restPath }),
    ...(flags.authTokenEnv === undefined ? {} : { authTokenEnv: flags.authTokenEnv }),
  };
  const declaration = {
    ...agent.declaration,
    jsonRpcPath: agent.declaration.jsonRpcPath ?? SEED_002_PATHS.jsonRpcPath,
    restPath: agent.declaration.restPath ?? SEED_002_PATHS.restPath,
    ...given,
  };
  const checked = checkValue(CONTROL, 'AgentDeclaration', declaration, { flavour: 'exact' });
  if (!checked.ok) {
    const names: Record<string, string> = { jsonRpcPath: '--jsonrpc-path', restPath: '--rest-path', authTokenEnv: '--auth-token-env' };
    const named = checked.violations.map((violation) => ({ ...violation, field: names[violation.field] ?? violation.field }));
    throw new ConfigError(`invalid command line: ${violationPhrases(named, 'the agent').join('; ')}`);
  }
  const single: DeclaredAgent = {
    ...agent,
    declaration: checked.value,
    settlesToken: true,
    ...(flags.authToken === undefined ? {} : { token: flags.authToken }),
  };
  return { ...read, agents: [single] };
}

/** Reconciles the hub's instances with what the source declares: at start, and on every reload. */
export function applyAgents(
  parts: Pick<HubParts, 'inbounds' | 'presets'>,
  source: AgentsSource,
  read: ReadAgents,
): Promise<ReconcileSummary> {
  return reconcileAgents(parts.inbounds, parts.presets, read.agents, { exclusive: source.exclusive });
}

/** What a reconcile did, in one line: `agents.yaml: created a, b; updated c (description)`. */
export function summaryLine(file: string, summary: ReconcileSummary): string {
  const ids = (list: readonly string[]) => list.join(', ');
  const parts = [
    ...(summary.created.length > 0 ? [`created ${ids(summary.created)}`] : []),
    ...(summary.updated.length > 0
      ? [`updated ${summary.updated.map((entry) => `${entry.id} (${entry.members.join(', ')})`).join(', ')}`]
      : []),
    ...(summary.unchanged.length > 0 ? [`unchanged ${ids(summary.unchanged)}`] : []),
    ...(summary.disabled.length > 0 ? [`disabled ${ids(summary.disabled)} (not declared; --agents-exclusive)`] : []),
    ...(summary.undeclared.length > 0 ? [`not declared, left as they are: ${ids(summary.undeclared)}`] : []),
  ];
  return `${file}: ${parts.length === 0 ? 'declares none' : parts.join('; ')}`;
}

export interface Reloads {
  stop(): void;
}

/**
 * Applies the file again on SIGHUP, and with --watch whenever it is saved. A file that cannot be
 * read, checked or applied changes nothing: the hub goes on serving what it served.
 */
export function startReloads(
  parts: Pick<HubParts, 'inbounds' | 'presets'>,
  source: AgentsSource,
  out: { info: (line: string) => void; error: (line: string) => void },
): Reloads {
  const reloadNow = async (why: string): Promise<void> => {
    try {
      const read = source.read();
      for (const note of read.notes) out.error(`note: ${note}`);
      out.info(`${why}: reloaded ${summaryLine(source.file, await applyAgents(parts, source, read))}`);
    } catch (error) {
      // A reload runs from a signal or a file event: whatever goes wrong is said, and the hub serves on.
      const known = error instanceof AgentsFileError || error instanceof ConfigError;
      const text = known ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
      out.error(`${why}: ${source.file} not applied; still serving the agents as they were:\n${text}`);
    }
  };
  // One reload at a time, in the order they were asked for: a save during a reload is applied after it.
  let reloading = Promise.resolve();
  const reload = (why: string): void => {
    reloading = reloading.then(() => reloadNow(why));
  };
  const onHangup = (): void => reload('SIGHUP');
  process.on('SIGHUP', onHangup);
  const watcher = source.watch
    ? watchFile(
        source.file,
        () => reload('changed'),
        (error) => out.error(`--watch: stopped watching ${source.file} (${error.message}); SIGHUP still reloads it`),
      )
    : undefined;
  return {
    stop() {
      process.off('SIGHUP', onHangup);
      watcher?.close();
    },
  };
}

/**
 * Calls `changed` once a burst of events on `file` has settled and its content differs from what
 * was last seen. The folder is watched, not the file: editors save by writing a new file and
 * renaming it over the old one, which a watch on the old file would not see.
 */
function watchFile(file: string, changed: () => void, failed: (error: Error) => void): FSWatcher {
  const name = basename(file);
  const contentOf = (): string | undefined => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  let seen = contentOf();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dirname(file), (_event, entry) => {
    if (entry !== null && entry !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      const content = contentOf();
      // Gone for now (mid-rename) or the same text (a save without edits): nothing to apply.
      if (content === undefined || content === seen) return;
      seen = content;
      changed();
    }, WATCH_DEBOUNCE_MS);
  });
  watcher.on('close', () => clearTimeout(timer));
  // The folder removed or unreadable: an FSWatcher without a listener would throw and end the hub.
  watcher.on('error', (error) => {
    watcher.close();
    failed(error);
  });
  return watcher;
}
