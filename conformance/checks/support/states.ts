import { TASK_STATES } from '../../../generated/a2a/1.0/task-states.js';
import type { TaskState } from '../../../generated/a2a/1.0/types.js';

/*
 * Task states as the agent sends them, read against generated/a2a/1.0/task-states.ts (the
 * classes, initial states and transitions come from there: isTerminalState, canTransition…).
 */

/** Whether a value is a TaskState name of the table (TASK_STATE_UNSPECIFIED is not one). */
export function isTaskState(value: unknown): value is TaskState {
  return typeof value === 'string' && Object.hasOwn(TASK_STATES, value);
}

/** `TASK_STATE_COMPLETED` → `COMPLETED`, for compact event lists. */
export function stateLabel(state: string): string {
  return state.replace('TASK_STATE_', '');
}
