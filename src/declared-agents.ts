// Agents declared in a file (serve --agents, serve --agent): reading and checking the file,
// and reconciling the stored instances with it. The command line reaches src/inbound/ through here.
export { AgentsFileError } from './inbound/agents-file/source.js';
export {
  readAgentsFile,
  readSingleAgentFile,
  SINGLE_AGENT_ID,
  type DeclaredAgent,
  type ReadAgents,
} from './inbound/agents-file/declarations.js';
export { KNOWN_PROVIDERS } from './inbound/agents-file/data-agent.js';
export { reconcileAgents, type ReconcileOptions, type ReconcileSummary } from './inbound/agents-file/reconcile.js';
