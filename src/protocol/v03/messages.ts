import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { withoutUndefined } from '../../support/records.js';
import { partFrom03, partTo03 } from './parts.js';
import { roleFrom03, roleTo03 } from './states.js';

/** Messages: the same members, plus `kind: "message"` in 0.3, with roles and parts translated. */
export function messageTo03(message: V10.Message): V03.Message {
  return withoutUndefined({
    kind: 'message',
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: roleTo03(message.role),
    parts: message.parts.map(partTo03),
    metadata: message.metadata,
    extensions: message.extensions,
    referenceTaskIds: message.referenceTaskIds,
  });
}

export function messageFrom03(message: V03.Message): V10.Message {
  return withoutUndefined({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: roleFrom03(message.role),
    parts: message.parts.map(partFrom03),
    metadata: message.metadata,
    extensions: message.extensions,
    referenceTaskIds: message.referenceTaskIds,
  });
}
