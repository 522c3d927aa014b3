import type { Command } from 'commander';
import { PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { resolveConfig, type TextSetting } from '../config.js';
import type { ReconcileSummary } from '../declared-agents.js';
import { startHub, storeLocation, type Hub } from '../hub.js';
import { cardPathOf } from '../server/hosted-agent.js';
import { addAgentsOptions, agentsSourceOf, applyAgents, startReloads, summaryLine, type AgentsFlags } from './agents-flags.js';
import { singleAgentBannerLines } from './single-agent-banner.js';

interface ServeFlags extends AgentsFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  config?: string;
  databaseUrl?: string;
}

/** The flags that set a HubConfig member, by the commander option name; the member is the same name. */
const SETTING_FLAGS = { host: '--host', port: '--port', dataDir: '--data-dir', databaseUrl: '--database-url' } as const;

/** `a2a-hub serve`: starts the hub and prints where everything is, like seed 002 §1.4. */
export function addServeCommand(program: Command, setExitCode: (code: number) => void): void {
  const command = program
    .command('serve')
    .description('start the hub (SQLite under the data dir, a default echo agent on first start unless agents are declared)')
    .option('--host <address>', 'address to listen on [env A2A_HUB_HOST] (default 127.0.0.1)')
    .option('-p, --port <port>', 'port; 0 picks a free one [env A2A_HUB_PORT] (default 3080)')
    .option('--data-dir <dir>', 'folder for the database [env A2A_HUB_DATA_DIR] (default .a2a-hub)')
    .option('-c, --config <file>', 'JSON or YAML config file, see docs/server.md [env A2A_HUB_CONFIG]')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite, for replicas: postgres://… [env A2A_HUB_DATABASE_URL]');
  addAgentsOptions(command).action(async (flags: ServeFlags) => {
    const warn = (message: string): void => void process.stderr.write(`warning: ${message}\n`);
    const source = agentsSourceOf(flags, process.env, warn);
    // Read before anything starts: a file with mistakes is reported without touching the data dir.
    const declared = source?.read();
    for (const note of declared?.notes ?? []) process.stderr.write(`note: ${note}\n`);
    const single = source?.single === true ? declared?.agents[0]?.declaration.id : undefined;
    const file = flags.config ?? process.env['A2A_HUB_CONFIG'];
    const config = resolveConfig({
      ...(file ? { file } : {}),
      env: process.env,
      args: settingArgs(flags),
      // The one agent is the hub's well-known card, whatever the config file says.
      ...(single === undefined ? {} : { flags: { wellKnownInstance: single } }),
      onDeprecated: warn,
    });
    let summary: ReconcileSummary | undefined;
    const hub = await startHub({
      ...config,
      ...(source === undefined || declared === undefined
        ? {}
        : {
            setUpInstances: async (parts) => {
              summary = await applyAgents(parts, source, declared);
            },
          }),
    });
    const banner = single === undefined ? bannerLines(hub) : singleAgentBannerLines(hub, single);
    if (source !== undefined && summary !== undefined) {
      // Above the last line, "Stop with Ctrl-C".
      banner.splice(-1, 0, `${single === undefined ? 'Agents:      ' : 'Agent file:'} ${summaryLine(source.file, summary)}`);
    }
    process.stdout.write(`${banner.join('\n')}\n`);
    const reloads =
      source === undefined
        ? undefined
        : startReloads(hub, source, {
            info: (line) => void process.stdout.write(`${line}\n`),
            error: (line) => void process.stderr.write(`${line}\n`),
          });
    await untilSignal(hub, () => reloads?.stop());
    setExitCode(0);
  });
}

/** Every setting flag given, even an empty one: `--host ""` is a mistake to report, not a default to fall back on. */
function settingArgs(flags: ServeFlags): TextSetting[] {
  return Object.entries(SETTING_FLAGS).flatMap(([member, name]) => {
    const text = flags[member as keyof typeof SETTING_FLAGS];
    return text === undefined ? [] : [{ member: member as keyof typeof SETTING_FLAGS, name, text }];
  });
}

/** Where everything is, one line each; every enabled instance gets its JSON-RPC, REST and card URLs. */
export function bannerLines(hub: Pick<Hub, 'url' | 'inbounds' | 'config'>): string[] {
  const wellKnown = hub.inbounds.defaultAgent();
  const enabled = hub.inbounds.list().filter((inbound) => inbound.enabled);
  return [
    `a2a-hub (A2A ${PROTOCOL_VERSION}) listening`,
    `Server URL:   ${hub.url}`,
    wellKnown === undefined
      ? `AgentCard:    none at ${WELL_KNOWN_AGENT_CARD_PATH} (wellKnownInstance names no enabled, available instance)`
      : `AgentCard:    ${hub.url}${WELL_KNOWN_AGENT_CARD_PATH}   (${wellKnown.id})`,
    ...enabled.flatMap((inbound) => {
      const unavailable = hub.inbounds.unavailableReason(inbound.id);
      if (unavailable !== undefined) return [`Unavailable:  ${hub.url}${inbound.endpointPath}   (${inbound.id}: ${unavailable})`];
      const agent = hub.inbounds.agent(inbound.id);
      if (agent === undefined) return [];
      return [
        `JSON-RPC:     ${hub.url}${agent.jsonRpcPath}   (${inbound.id}, preset ${inbound.preset})`,
        `REST:         ${hub.url}${agent.restPath}`,
        `  its card:   ${hub.url}${cardPathOf(agent.endpointPath)}`,
      ];
    }),
    `Control API:  ${hub.url}${CONTROL_API.basePath}   (loopback peers only)`,
    `Panel:        ${hub.url}${CONTROL_API.panelPath}`,
    `Data:         ${storeLocation(hub.config)}`,
    ...(enabled.length === 0 ? ['No enabled inbound agent: create one through the control API.'] : []),
    'Stop with Ctrl-C (running tasks get a grace period).',
  ];
}

/** Resolves after SIGINT or SIGTERM has shut the hub down; a second signal exits at once. */
function untilSignal(hub: Hub, onStop: () => void): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        process.stderr.write(`${signal} again: exiting without waiting\n`);
        process.exit(1);
      }
      stopping = true;
      onStop();
      process.stdout.write(`${signal}: shutting down (grace ${hub.config.shutdownGraceMs} ms)\n`);
      hub.close().then(resolve, (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
