/**
 * Response headers that are a2a-hub's own, not A2A's (those are generated from spec/a2a:
 * HEADERS). One place, so the handler that sets one, the edges that send it and the clients
 * that read it cannot spell it differently.
 */

/**
 * The Standard Webhooks signing secret (`whsec_…`) of a push config the call registered, sent
 * once: on the answer of CreateTaskPushNotificationConfig, and of a SendMessage or
 * SendStreamingMessage whose inline config was registered. No read shows it again.
 */
export const WEBHOOK_SECRET_HEADER = 'A2A-Hub-Webhook-Secret';
