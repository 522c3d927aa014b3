import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { withoutUndefined } from '../../../support/records.js';
import { UntranslatableError } from '../../untranslatable.js';
import { partFromProto, partToProto } from './parts.js';

/**
 * Messages: the proto's `content` is the JSON form's `parts`, roles are the proto enum names
 * (`ROLE_USER`), and `kind` exists only in the JSON form. Lossy toward ProtoJSON:
 * `referenceTaskIds`, which the 0.3 proto lacks, and what parts lose.
 */
const ROLE_TO_PROTO = { user: 'ROLE_USER', agent: 'ROLE_AGENT' } as const satisfies Record<V03.Message['role'], P.Role>;
const ROLE_FROM_PROTO: Record<P.Role, V03.Message['role']> = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };

export function messageToProto(message: V03.Message): P.Message {
  return withoutUndefined({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: ROLE_TO_PROTO[message.role],
    content: message.parts.map(partToProto),
    metadata: message.metadata,
    extensions: message.extensions,
  });
}

/** A proto Message as 0.3's JSON form; what that form requires and the proto leaves optional must be there. */
export function messageFromProto(message: P.Message, path: string): V03.Message {
  if (message.messageId === undefined || message.messageId === '') throw new UntranslatableError(`${path}.messageId`, 'is required');
  if (message.role === undefined) throw new UntranslatableError(`${path}.role`, 'is required: ROLE_USER or ROLE_AGENT');
  if (message.content === undefined || message.content.length === 0)
    throw new UntranslatableError(`${path}.content`, 'needs at least one part');
  return withoutUndefined({
    kind: 'message',
    messageId: message.messageId,
    contextId: message.contextId === '' ? undefined : message.contextId,
    taskId: message.taskId === '' ? undefined : message.taskId,
    role: ROLE_FROM_PROTO[message.role],
    parts: message.content.map((part, index) => partFromProto(part, `${path}.content[${index}]`)),
    metadata: message.metadata,
    extensions: message.extensions,
  });
}
