/**
 * a2a-hub's own header beside A2A's push-config answers (not part of the protocol, so not in
 * generated/a2a): the hub signs every webhook delivery with a secret it generates per config
 * and returns exactly once, in this header of the CreateTaskPushNotificationConfig answer and
 * of a SendMessage / SendStreamingMessage answer that registered an inline config. Other
 * agents do not send it. The hub (which sets it) and the client (which reads it) share this name.
 */
export const WEBHOOK_SECRET_HEADER = 'A2A-Hub-Webhook-Secret';

/**
 * The headers of an answer that carries the signing secret. `no-store` keeps every cache (a
 * proxy's, the browser's) from holding the one copy of the secret the hub ever sends.
 */
export function signingSecretHeaders(signingSecret: string): Record<string, string> {
  return { [WEBHOOK_SECRET_HEADER]: signingSecret, 'Cache-Control': 'no-store' };
}
