import type { Command } from 'commander';
import { isSigningSecret } from '../push/signature.js';
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '../push/webhook-receiver.js';

interface WebhookFlags {
  host: string;
  port: string;
  secret?: string;
  task?: string;
  status?: string;
  json?: boolean;
}

/** The exit code of a usage error, as for the other commands. */
const USAGE = 2;

/** `a2a-hub webhook`: a receiver that prints every push delivery, until Ctrl-C. */
export function addWebhookCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('webhook')
    .description('receive push notifications: print every delivery, check its signature and task id, answer 204')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port; 0 picks a free one', '0')
    .option('--secret <secret>', "the config's signing secret (whsec_…): deliveries without a good signature get 401")
    .option('--task <id>', 'the task the deliveries must be about: others get 400')
    .option('--status <code>', 'answer good deliveries with this status instead of 204 (e.g. 503 to watch the retries)')
    .option('--json', 'print one JSON object a line (JSONL) instead of text')
    .action(async (flags: WebhookFlags) => {
      setExitCode(await webhook(flags));
    });
}

async function webhook(flags: WebhookFlags): Promise<number> {
  const port = wholeNumber(flags.port, 0, 65535);
  const status = flags.status === undefined ? 204 : wholeNumber(flags.status, 200, 599);
  const problems = [
    ...(port === undefined ? [`--port must be a whole number from 0 to 65535, got ${JSON.stringify(flags.port)}`] : []),
    ...(status === undefined ? [`--status must be an HTTP status from 200 to 599, got ${JSON.stringify(flags.status)}`] : []),
    // The secret itself is never echoed: it may be the real one.
    ...(flags.secret !== undefined && !isSigningSecret(flags.secret)
      ? ['--secret must be whsec_ followed by base64 (at least 16 bytes)']
      : []),
  ];
  if (problems.length > 0 || port === undefined || status === undefined) {
    for (const problem of problems) process.stderr.write(`a2a-hub webhook: ${problem}\n`);
    return USAGE;
  }
  const print = flags.json === true ? jsonLine : textLine;
  let receiver: WebhookReceiver;
  try {
    receiver = await startWebhookReceiver({
      host: flags.host,
      port,
      answerStatus: status,
      ...(flags.secret === undefined ? {} : { secret: flags.secret }),
      ...(flags.task === undefined ? {} : { expectTaskId: flags.task }),
      onDelivery: (delivery) => process.stdout.write(`${print(delivery)}\n`),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const hint = code === 'EADDRINUSE' ? ': the port is in use; pick another with --port N (0 picks a free one)' : '';
    process.stderr.write(`a2a-hub webhook: cannot listen on ${flags.host} port ${port}: ${(error as Error).message}${hint}\n`);
    return USAGE;
  }
  process.stdout.write(flags.json === true ? `${JSON.stringify({ listening: receiver.url })}\n` : `Webhook URL: ${receiver.url}\n`);
  await untilSignal();
  await receiver.close();
  return 0;
}

/** time, webhook-id, task id, kind, state or artifact id, signature, the answer (and why it was refused). */
export function textLine(delivery: WebhookDelivery): string {
  const summary = delivery.summary;
  const detail = summary?.state ?? summary?.artifactId;
  const fields = [
    delivery.receivedAt,
    delivery.webhookId ?? '-',
    summary?.taskId ?? '-',
    summary?.kind ?? '-',
    detail ?? '-',
    `signature ${delivery.signature}`,
    `${delivery.status}${delivery.duplicate ? ' duplicate' : ''}`,
  ];
  return `${fields.join('  ')}${delivery.reason === undefined ? '' : `  ${delivery.reason}`}`;
}

/** The same as JSON, with the frame; the request headers stay out (Authorization carries credentials). */
export function jsonLine(delivery: WebhookDelivery): string {
  const { receivedAt, path, webhookId, webhookTimestamp, signature, status, reason, duplicate, summary, frame } = delivery;
  return JSON.stringify({ receivedAt, path, webhookId, webhookTimestamp, ...summary, signature, status, duplicate, reason, frame });
}

function wholeNumber(text: string, min: number, max: number): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
