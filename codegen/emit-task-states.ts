import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, enumValues, literal, objectKey, requireKnown } from './tables.js';

interface StateRow {
  name: string;
  class: 'active' | 'interrupted' | 'terminal' | 'unknown';
  initial: boolean;
  outcome: 'success' | 'failure' | null;
  description: string;
  transitions: string[];
}

/** Every class a state may have, in the order the generated union lists those a family uses. */
const CLASSES: readonly StateRow['class'][] = ['active', 'interrupted', 'terminal', 'unknown'];

interface TaskStatesTable {
  states: StateRow[];
}

/** `task-states.ts`: the task state machine, checked against the TaskState enum of the schemas. */
export function emitTaskStates(specDir: string, family: Family): string {
  const table = checkedTable<TaskStatesTable>(specDir, family, 'task-states.json');
  const where = table.file.displayPath;
  const enumStates = enumValues(family, 'TaskState');
  const tableStates = table.states.map((state) => state.name);
  requireKnown('state', tableStates, new Set(enumStates), where);
  requireKnown('state (in TaskState but not in the table)', enumStates, new Set(tableStates), where);
  requireKnown(
    'transition target',
    table.states.flatMap((state) => state.transitions),
    new Set(enumStates),
    where,
  );
  for (const state of table.states) {
    if (state.class === 'terminal' && state.transitions.length > 0) {
      throw new Error(`${where}: terminal state ${state.name} cannot have transitions`);
    }
  }
  const entries = table.states.map((state) => `  ${objectKey(state.name)}: ${literal(state).replaceAll('\n', '\n  ')},`);
  const ofClass = (cls: StateRow['class']) => literal(table.states.filter((s) => s.class === cls).map((s) => s.name));
  const ofOutcome = (outcome: StateRow['outcome']) => literal(table.states.filter((s) => s.outcome === outcome).map((s) => s.name));
  return [
    generatedHeader(`spec/${family.id}/task-states.json`),
    "import type { TaskState } from './types.js';",
    '',
    `export type TaskStateClass = ${CLASSES.filter((cls) => table.states.some((state) => state.class === cls))
      .map((cls) => literal(cls))
      .join(' | ')};`,
    "export type TaskOutcome = 'success' | 'failure';",
    '',
    'export interface TaskStateDefinition {',
    '  readonly name: TaskState;',
    '  readonly class: TaskStateClass;',
    '  /** Whether a new task may be created in this state. */',
    '  readonly initial: boolean;',
    '  /** For a terminal state, whether the work succeeded; null otherwise. */',
    '  readonly outcome: TaskOutcome | null;',
    '  readonly description: string;',
    '  /** States this state may change to. */',
    '  readonly transitions: readonly TaskState[];',
    '}',
    '',
    'export const TASK_STATES: { readonly [S in TaskState]: TaskStateDefinition } = {',
    ...entries,
    '};',
    '',
    `export const ACTIVE_STATES: ReadonlySet<TaskState> = new Set<TaskState>(${ofClass('active')});`,
    `export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set<TaskState>(${ofClass('interrupted')});`,
    `export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set<TaskState>(${ofClass('terminal')});`,
    '/** Terminal states that end the work without its result: failed, canceled, rejected. */',
    `export const FAILURE_STATES: ReadonlySet<TaskState> = new Set<TaskState>(${ofOutcome('failure')});`,
    '',
    '/** Submitted or working: the agent is on it. */',
    'export function isActiveState(state: TaskState): boolean {',
    '  return ACTIVE_STATES.has(state);',
    '}',
    '',
    '/** Completed, failed, canceled or rejected: the task never changes again. */',
    'export function isTerminalState(state: TaskState): boolean {',
    '  return TERMINAL_STATES.has(state);',
    '}',
    '',
    '/** Input-required or auth-required: the task waits for the client. */',
    'export function isInterruptedState(state: TaskState): boolean {',
    '  return INTERRUPTED_STATES.has(state);',
    '}',
    '',
    '/** A terminal state whose work did not succeed: failed, canceled or rejected. */',
    'export function isFailureState(state: TaskState): boolean {',
    '  return FAILURE_STATES.has(state);',
    '}',
    '',
    'export function canTransition(from: TaskState, to: TaskState): boolean {',
    '  return TASK_STATES[from].transitions.includes(to);',
    '}',
    '',
  ].join('\n');
}
