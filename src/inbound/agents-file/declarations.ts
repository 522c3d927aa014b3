import type { AgentDeclaration } from '../../../generated/control/types.js';
import { A2A_1_0 } from '../../protocol/a2a-schema.js';
import { CONTROL } from '../../protocol/control-schema.js';
import { checkValue } from '../../protocol/validation.js';
import { isRecord } from '../../support/records.js';
import { dataAgentDeclaration, isDataAgentConfig } from './data-agent.js';
import { AgentsFileError, locatedPhrases, readSourceFile, type SourceFile, type ValuePath } from './source.js';

/** An agent a file declares, with where it is declared, for the messages about it. */
export interface DeclaredAgent {
  readonly declaration: AgentDeclaration;
  /** `agents.yaml:12`: the file and the line the declaration starts on. */
  readonly at: string;
  /**
   * A bearer token given on the command line (serve --agent --auth-token): the instance keeps its
   * digest only, and it takes the place of the declaration's authTokenEnv.
   */
  readonly token?: string;
  /**
   * Whether the declaration settles the token even without one (serve --agent: its command line
   * says whether there is a token), so a token set at run time (inbound.setAuth) is cleared. An
   * agents file leaves such a token alone unless the declaration names authTokenEnv.
   */
  readonly settlesToken?: boolean;
}

/** What a file declares, and what is worth telling about how it was read (seed 002's ignored members). */
export interface ReadAgents {
  readonly agents: readonly DeclaredAgent[];
  readonly notes: readonly string[];
}

/** The id of the one agent of `serve --agent FILE` when its file does not give one. */
export const SINGLE_AGENT_ID = 'agent';

/** Reads an agents file (spec/control/agents-file.schema.json, AgentsFile); every problem is an AgentsFileError line naming the line and field. */
export function readAgentsFile(path: string): ReadAgents {
  return agentsOf(readSourceFile(path, 'agents file'));
}

export function agentsOf(source: SourceFile): ReadAgents {
  const checked = checkValue(CONTROL, 'AgentsFile', source.value, { flavour: 'exact' });
  if (!checked.ok) throw new AgentsFileError(locatedPhrases(source, checked.violations, 'the file'));
  const problems: string[] = [];
  const firstLine = new Map<string, number>();
  const agents = checked.value.agents.map((declaration, index) => {
    const path = ['agents', index];
    problems.push(...skillProblems(source, declaration, path));
    const line = source.lineOf(path);
    const first = firstLine.get(declaration.id);
    if (first === undefined) firstLine.set(declaration.id, line);
    else {
      const idLine = source.lineOf([...path, 'id']);
      problems.push(
        `${source.name}:${idLine}: agents[${index}].id "${declaration.id}" is declared already, at line ${first}: each id once`,
      );
    }
    return { declaration, at: `${source.name}:${line}` };
  });
  if (problems.length > 0) throw new AgentsFileError(problems);
  return { agents, notes: [] };
}

/**
 * Reads the file of `serve --agent FILE`: one AgentDeclaration (its id may be left out:
 * `agent`), or seed 002's DataAgent YAML (AGENT_CONFIG, MODEL, SCENARIO).
 */
export function readSingleAgentFile(path: string): ReadAgents {
  const source = readSourceFile(path, 'agent file');
  if (isDataAgentConfig(source.value)) {
    const { declaration, notes } = dataAgentDeclaration(source, SINGLE_AGENT_ID);
    return { agents: [{ declaration, at: `${source.name}:${source.lineOf([])}` }], notes };
  }
  return { agents: [singleDeclaration(source)], notes: [] };
}

function singleDeclaration(source: SourceFile): DeclaredAgent {
  const { value } = source;
  if (isRecord(value) && 'agents' in value && !('name' in value)) {
    throw new AgentsFileError([
      `${source.name}:${source.lineOf(['agents'])}: this is an agents file (a list under agents:): serve it with --agents ${source.name}; --agent takes one agent's members (name, description, version, …) at the top level`,
    ]);
  }
  const withId = isRecord(value) && !('id' in value) ? { id: SINGLE_AGENT_ID, ...value } : value;
  const checked = checkValue(CONTROL, 'AgentDeclaration', withId, { flavour: 'exact' });
  if (!checked.ok) throw new AgentsFileError(locatedPhrases(source, checked.violations, 'the file'));
  const problems = skillProblems(source, checked.value, []);
  if (problems.length > 0) throw new AgentsFileError(problems);
  return { declaration: checked.value, at: `${source.name}:${source.lineOf([])}` };
}

/** Custom skills are A2A 1.0 AgentSkill objects; checked exactly, so a misspelt member is reported, not dropped. */
function skillProblems(source: SourceFile, declaration: AgentDeclaration, path: ValuePath): string[] {
  const prefix = path
    .map((segment) => (typeof segment === 'number' ? `[${segment}]` : segment))
    .join('.')
    .replace(/\.\[/g, '[');
  return (declaration.skills ?? []).flatMap((skill, index) => {
    const fieldPrefix = `${prefix === '' ? '' : `${prefix}.`}skills[${index}]`;
    const checked = checkValue(A2A_1_0, 'AgentSkill', skill, { flavour: 'exact', fieldPrefix });
    return checked.ok ? [] : locatedPhrases(source, checked.violations, fieldPrefix);
  });
}
