import type * as V03 from '../../../generated/a2a/0.3/types.js';
import { TASK_STATES as STATES_03 } from '../../../generated/a2a/0.3/task-states.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { TASK_STATES as STATES_10 } from '../../../generated/a2a/1.0/task-states.js';
import { UntranslatableError } from '../untranslatable.js';

/**
 * Task states and roles between the versions. 1.0 renamed every enum value to its proto name
 * (`input-required` is `TASK_STATE_INPUT_REQUIRED`, `user` is `ROLE_USER`); the pairs are derived
 * from the two generated tables by that rule, so neither list is written here.
 */
const STATE_PREFIX = 'TASK_STATE_';
const ROLE_PREFIX = 'ROLE_';

const protoSpelling = (prefix: string, name: string): string => `${prefix}${name.toUpperCase().replaceAll('-', '_')}`;

const STATE_TO_10 = new Map<V03.TaskState, V10.TaskState>(
  (Object.keys(STATES_03) as V03.TaskState[]).flatMap((state): [V03.TaskState, V10.TaskState][] => {
    const current = protoSpelling(STATE_PREFIX, state);
    return Object.hasOwn(STATES_10, current) ? [[state, current as V10.TaskState]] : [];
  }),
);
const STATE_TO_03 = new Map<V10.TaskState, V03.TaskState>([...STATE_TO_10].map(([old, current]) => [current, old]));

export function stateTo03(state: V10.TaskState): V03.TaskState {
  const old = STATE_TO_03.get(state);
  // Unreachable while every 1.0 state has a 0.3 one (the registries test holds the pairing).
  if (old === undefined) throw new UntranslatableError('state', `${state} has no A2A 0.3 counterpart`);
  return old;
}

export function stateFrom03(state: V03.TaskState, path = 'state'): V10.TaskState {
  const current = STATE_TO_10.get(state);
  if (current === undefined)
    throw new UntranslatableError(
      path,
      `A2A 0.3 state "${state}" has no 1.0 counterpart (1.0 dropped it; TASK_STATE_UNSPECIFIED is not a wire value)`,
    );
  return current;
}

type Role03 = V03.Message['role'];

export function roleTo03(role: V10.Role): Role03 {
  return role.slice(ROLE_PREFIX.length).toLowerCase() as Role03;
}

export function roleFrom03(role: Role03): V10.Role {
  return protoSpelling(ROLE_PREFIX, role) as V10.Role;
}

/** Every 0.3 state with its 1.0 counterpart (undefined for `unknown`), for tests and docs. */
export function statePairs(): [V03.TaskState, V10.TaskState | undefined][] {
  return (Object.keys(STATES_03) as V03.TaskState[]).map((state) => [state, STATE_TO_10.get(state)]);
}
