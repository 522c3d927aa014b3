import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { withoutUndefined } from '../../../support/records.js';
import { UntranslatableError } from '../../untranslatable.js';
import { messageFromProto, messageToProto } from './messages.js';
import { pushConfigFromProto, pushConfigToProto } from './push-configs.js';

/**
 * message:send's request. The proto calls the message `request` (JSON name `message`) and the
 * push config of the send `pushNotification`.
 *
 * ProtoJSON leaves a false bool out, so a configuration without `blocking` asks not to block:
 * that is what a client that set `blocking: false` sends. A send without any configuration gets
 * the 0.3 default, as a JSON-RPC send does (docs/spec-policy.md 10.5).
 */
export function sendParamsFromProto(request: P.SendMessageRequest): V03.MessageSendParams {
  if (request.message === undefined) throw new UntranslatableError('message', 'is required');
  const configuration = request.configuration;
  return withoutUndefined({
    message: messageFromProto(request.message, 'message'),
    configuration:
      configuration === undefined
        ? undefined
        : withoutUndefined({
            acceptedOutputModes: configuration.acceptedOutputModes,
            blocking: configuration.blocking ?? false,
            historyLength: configuration.historyLength,
            pushNotificationConfig:
              configuration.pushNotification === undefined
                ? undefined
                : pushConfigFromProto(configuration.pushNotification, 'configuration.pushNotification'),
          }),
    metadata: request.metadata,
  });
}

export function sendParamsToProto(params: V03.MessageSendParams): P.SendMessageRequest {
  const configuration = params.configuration;
  return withoutUndefined({
    message: messageToProto(params.message),
    configuration:
      configuration === undefined
        ? undefined
        : withoutUndefined({
            acceptedOutputModes: configuration.acceptedOutputModes,
            // Always written: a ProtoJSON reader takes a configuration without it as false, and the 0.3 default is to block.
            blocking: configuration.blocking ?? true,
            historyLength: configuration.historyLength,
            pushNotification:
              configuration.pushNotificationConfig === undefined ? undefined : pushConfigToProto(configuration.pushNotificationConfig),
          }),
    metadata: params.metadata,
  });
}
