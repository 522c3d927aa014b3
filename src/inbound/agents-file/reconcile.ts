import { prunes } from '../../store/retention.js';
import { DEFAULTS } from '../../../generated/control/defaults.js';
import type { AgentDeclaration } from '../../../generated/control/types.js';
import { DEFAULT_PRESET, PresetRegistry } from '../../executors/presets.js';
import type { StoredInstance } from '../../store/task-store.js';
import { canonicalJson } from '../../support/canonical-json.js';
import { tokenDigest } from '../../support/token-digest.js';
import { defaultEndpointPath, InboundRegistry, type InboundConfig, type InboundInput, type InboundPatch } from '../inbound-registry.js';
import type { DeclaredAgent } from './declarations.js';
import { AgentsFileError } from './source.js';

/** What reconciling a file with the stored instances did, by instance id. */
export interface ReconcileSummary {
  readonly created: readonly string[];
  /** Each with the members that changed. */
  readonly updated: readonly { readonly id: string; readonly members: readonly string[] }[];
  readonly unchanged: readonly string[];
  /** Stored, undeclared and enabled before: disabled because the file is exclusive. */
  readonly disabled: readonly string[];
  /** Stored and undeclared, left as they are. */
  readonly undeclared: readonly string[];
}

export interface ReconcileOptions {
  /** The file declares every instance that serves: the others are disabled (kept, with their tasks, for inbound.enable or a later declaration). */
  readonly exclusive?: boolean;
}

/**
 * Brings the registry in line with the declared agents: each is created with its id when absent
 * and otherwise updated to exactly its declaration (a member it leaves out goes back to its
 * default); instances it does not declare are left alone, or disabled when `exclusive`.
 *
 * All or nothing: the whole change is first made on a copy of the registry (same presets, same
 * checks), so a path clash, an unknown preset or a relay without its connection is refused with
 * the line of the agent it concerns before anything real changes.
 */
export async function reconcileAgents(
  inbounds: InboundRegistry,
  presets: PresetRegistry,
  agents: readonly DeclaredAgent[],
  options: ReconcileOptions = {},
): Promise<ReconcileSummary> {
  await applyAgents(await rehearsalOf(inbounds, presets), agents, options);
  try {
    return await applyAgents(inbounds, agents, options);
  } catch (error) {
    // The rehearsal passed, so only the store itself failing gets here.
    if (error instanceof AgentsFileError) throw new AgentsFileError([...error.problems, 'the agents before it were applied']);
    throw error;
  }
}

async function applyAgents(
  inbounds: InboundRegistry,
  agents: readonly DeclaredAgent[],
  options: ReconcileOptions,
): Promise<ReconcileSummary> {
  const created: string[] = [];
  const updated: { id: string; members: string[] }[] = [];
  const unchanged: string[] = [];
  for (const agent of agents) {
    const { id } = agent.declaration;
    try {
      const current = inbounds.get(id);
      if (current === undefined) {
        await create(inbounds, agent);
        created.push(id);
        continue;
      }
      const members = changedMembers(current, agent);
      if (members.length === 0) unchanged.push(id);
      else {
        await update(inbounds, current, agent, members);
        updated.push({ id, members });
      }
    } catch (error) {
      throw new AgentsFileError([`${agent.at}: agent "${id}": ${(error as Error).message}`]);
    }
  }
  const declared = new Set(agents.map((agent) => agent.declaration.id));
  const others = inbounds.list().filter((config) => !declared.has(config.id));
  const disabled = options.exclusive ? others.filter((config) => config.enabled).map((config) => config.id) : [];
  for (const id of disabled) await inbounds.setEnabled(id, false);
  const undeclared = others.map((config) => config.id).filter((id) => !disabled.includes(id));
  return { created, updated, unchanged, disabled, undeclared };
}

/** The members a declaration settles, as the registry stores them, with every default filled in. */
type Settled = Record<(typeof SETTLED)[number], unknown>;

const SETTLED = [
  'name',
  'description',
  'version',
  'endpointPath',
  'jsonRpcPath',
  'restPath',
  'tenants',
  'preset',
  'authTokenEnv',
  'tokenDigest',
  'relayTo',
  'skills',
  'model',
  'instructions',
  'tools',
  'maxToolRounds',
  'executionTimeoutMs',
  'sessionOrder',
  'pushNotifications',
  'retention',
  'enabled',
] as const;

/**
 * The state the declaration asks for. A token set at run time (inbound.setAuth) is outside what an
 * agents file can say: it stays unless the declaration names authTokenEnv (which replaces it) or
 * settles the token itself (serve --agent, whose command line says whether there is one).
 */
function declaredState(agent: DeclaredAgent, current: InboundConfig | undefined): Settled {
  const { declaration, token } = agent;
  const keepsToken = token === undefined && agent.settlesToken !== true && declaration.authTokenEnv === undefined;
  return {
    ...settled(declaration),
    endpointPath: declaration.endpointPath ?? defaultEndpointPath(declaration.id),
    preset: declaration.preset ?? DEFAULT_PRESET,
    authTokenEnv: token === undefined ? declaration.authTokenEnv : undefined,
    tokenDigest: token !== undefined ? tokenDigest(token) : keepsToken ? current?.tokenDigest : undefined,
  };
}

function storedState(config: InboundConfig): Settled {
  return { ...settled(config), tokenDigest: config.tokenDigest };
}

/** What two shapes share, read alike: an empty list or text is no value, an absent number or flag its default. */
function settled(from: Omit<Partial<AgentDeclaration>, 'skills'> & { readonly skills?: readonly unknown[] }): Settled {
  const defaults = DEFAULTS.InboundCreateAction;
  const list = (value: readonly unknown[] | undefined) => (value === undefined || value.length === 0 ? undefined : value);
  return {
    name: from.name,
    description: from.description,
    version: from.version,
    endpointPath: from.endpointPath,
    jsonRpcPath: from.jsonRpcPath,
    restPath: from.restPath,
    tenants: list(from.tenants),
    preset: from.preset,
    authTokenEnv: from.authTokenEnv,
    tokenDigest: undefined,
    relayTo: from.relayTo === '' ? undefined : from.relayTo,
    skills: list(from.skills),
    model: from.model,
    instructions: from.instructions === '' ? undefined : from.instructions,
    tools: from.tools,
    maxToolRounds: from.maxToolRounds ?? defaults.maxToolRounds,
    executionTimeoutMs: from.executionTimeoutMs ?? defaults.executionTimeoutMs,
    sessionOrder: from.sessionOrder,
    pushNotifications: from.pushNotifications ?? defaults.pushNotifications,
    retention: prunes(from.retention) ? from.retention : undefined,
    enabled: from.enabled ?? defaults.enabled,
  };
}

function changedMembers(current: InboundConfig, agent: DeclaredAgent): string[] {
  const stored = storedState(current);
  const declared = declaredState(agent, current);
  const text = (value: unknown) => (value === undefined ? '' : canonicalJson(value));
  return SETTLED.filter((member) => text(stored[member]) !== text(declared[member]));
}

async function create(inbounds: InboundRegistry, agent: DeclaredAgent): Promise<void> {
  const { declaration, token } = agent;
  const input: InboundInput = token === undefined ? declaration : { ...declaration, authTokenEnv: undefined };
  await inbounds.create(input);
  if (token !== undefined) await inbounds.setAuth(declaration.id, token);
}

/** What a patch writes to clear a member, where the registry clears it (src/inbound/inbound-registry.ts, InboundPatch). */
const CLEARED: Partial<Record<keyof InboundPatch, unknown>> = {
  jsonRpcPath: '',
  restPath: '',
  authTokenEnv: '',
  relayTo: '',
  instructions: '',
  sessionOrder: '',
  tenants: [],
  skills: [],
  model: null,
  tools: null,
  retention: {},
};

async function update(inbounds: InboundRegistry, current: InboundConfig, agent: DeclaredAgent, members: readonly string[]): Promise<void> {
  const id = current.id;
  const declared = declaredState(agent, current);
  const patch: Record<string, unknown> = {};
  for (const member of members) {
    if (member === 'enabled' || member === 'tokenDigest') continue;
    patch[member] = declared[member as keyof Settled] ?? CLEARED[member as keyof InboundPatch];
  }
  // setAuth clears the token's digest and the variable together: the variable the declaration names goes back in with the patch.
  const dropDigest = members.includes('tokenDigest') && current.tokenDigest !== undefined && agent.token === undefined;
  if (dropDigest) {
    await inbounds.setAuth(id, undefined);
    if (declared.authTokenEnv !== undefined) patch['authTokenEnv'] = declared.authTokenEnv;
  }
  if (Object.keys(patch).length > 0) await inbounds.update(id, patch);
  if (agent.token !== undefined && members.includes('tokenDigest')) await inbounds.setAuth(id, agent.token);
  if (members.includes('enabled')) await inbounds.setEnabled(id, declared.enabled as boolean);
}

/**
 * A registry over a copy of the stored configurations, with the same presets minus what reaches
 * outside (worker feeds), where a reconcile can fail without touching anything real.
 */
function rehearsalOf(inbounds: InboundRegistry, presets: PresetRegistry): Promise<InboundRegistry> {
  const rows = new Map<string, StoredInstance>(inbounds.list().map((config) => [config.id, { id: config.id, config }]));
  const meta = new Map<string, string>();
  const copies = new PresetRegistry();
  for (const { workerOf: _workerOf, close: _close, ...preset } of presets.list()) copies.register(preset);
  return InboundRegistry.open({
    store: {
      loadInstances: () => [...rows.values()],
      saveInstance: (row) => void rows.set(row.id, row),
      deleteInstance: (id) => void rows.delete(id),
      getMeta: (key) => meta.get(key),
      setMeta: (key, value) => void meta.set(key, value),
    },
    presets: copies,
    now: () => new Date().toISOString(),
  });
}
