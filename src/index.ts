// The public API of a2a-hub as a library: start a hub, plug in agents, use the protocol core,
// call remote agents (client, remote turns, tools).
export { startHub, type Hub, type HubOptions, type HubParts } from './hub.js';
export { resolveConfig, DEFAULTS as CONFIG_DEFAULTS, type ResolvedHubConfig, type TextSetting } from './config.js';
export { PresetRegistry, type Preset } from './executors/presets.js';
export type { AgentExecutor, ArtifactChunk, Content, ExecutionEvents, ExecutionRequest, SessionState } from './executors/executor.js';
export { TEST_DIRECTIVES_EXTENSION, TEST_DIRECTIVE_METADATA_KEY, parseTestDirective } from './executors/test-directives.js';
export { A2AError, a2aError, type ErrorDefinition, type ErrorName } from './protocol/a2a-error.js';
export { checkValue, type Checked } from './protocol/validation.js';
export { A2A_1_0 } from './protocol/a2a-schema.js';
export { OperationError } from './support/operation-error.js';
export type * as A2A from '../generated/a2a/1.0/types.js';
export {
  A2AClient,
  A2ATransportError,
  CLIENT_BINDINGS,
  assembleArtifacts,
  textOf,
  fetchAgentCard,
  pickInterface,
  WEBHOOK_SECRET_HEADER,
  type ClientBindingName,
  type ConnectOptions,
  type CreatedPushConfig,
  type InlinePushConfig,
  type SendOptions,
  type SendStreamOptions,
  type StreamEvent,
} from './client/a2a-client.js';
export {
  DEFAULT_URL_POLICY,
  DestinationPolicyError,
  UrlPolicyError,
  pushDestinationPolicy,
  type UrlPolicy,
} from './net/destination-policy.js';
export { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver, type WebhookReceiverOptions } from './push/webhook-receiver.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  generateSigningSecret,
  signWebhook,
  verifyWebhook,
  type VerifyOptions,
  type WebhookVerdict,
} from './push/signature.js';
export { runRemoteTurn, type RemoteTurnOptions, type RemoteTurnResult } from './client/remote-run.js';
export { ToolRegistry, ToolError, type ToolDefinition, type ToolResult } from './outbound/tool-registry.js';
export { OutboundRegistry, type OutboundConnection } from './outbound/outbound-registry.js';
export { RELAY_PRESET } from './executors/relay-preset.js';
