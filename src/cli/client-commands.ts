import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { AgentCard as V03AgentCard } from '../../generated/a2a/0.3/types.js';
import { PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { isFailureState } from '../../generated/a2a/1.0/task-states.js';
import type { AgentCard, Message, SendMessageRequest, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import {
  A2AClient,
  A2ATransportError,
  CLIENT_BINDINGS,
  fetchAgentCard,
  noUsableInterface,
  pickInterface,
  textOf,
  type ConnectOptions,
  type InterfaceChoice,
  type PushSendOptions,
} from '../client/a2a-client.js';
import { isFinalState } from '../client/task-stream.js';
import { UrlPolicyError } from '../net/destination-policy.js';
import { A2AError, type ErrorName } from '../protocol/a2a-error.js';
import { A2A_0_3, A2A_1_0 } from '../protocol/a2a-schema.js';
import { isCard03 } from '../protocol/card-location.js';
import { agentCardFrom03 } from '../protocol/v03/agent-cards.js';
import { checkValue } from '../protocol/validation.js';
import { pushConfigOf, type PushFlags } from './push-flags.js';

interface CardFlags {
  binding?: string;
  protocol?: string;
  interfaces?: boolean;
  token?: string;
  allowPrivate?: boolean;
  allowLinkLocal?: boolean;
}

interface SendFlags extends CardFlags, PushFlags {
  stream?: boolean;
  contextId?: string;
  taskId?: string;
}

/** Which card a URL stands for is decided in src/protocol/card-location.ts; this says it to the user. */
const URL_ARGUMENT =
  "the agent's card URL, its interface URL (card at <url>/agent-card.json, or the well-known card if that names the endpoint) or a base URL (card at /.well-known/agent-card.json)";

/** The --binding values, as a person types them: the card's protocolBinding names in lower case. */
const BINDING_FLAG = CLIENT_BINDINGS.map((binding) => binding.toLowerCase()).join('|');
const BINDING_HELP = `the interface to use, ${CLIENT_BINDINGS.map((binding) => binding.toLowerCase()).join(' or ')} (default: the first the card lists that the client speaks)`;

/** The --protocol values: a version the client speaks, `1.0` for any 1.x. */
const PROTOCOL_FLAGS: readonly NonNullable<InterfaceChoice['protocolVersion']>[] = [PROTOCOL_VERSION, VERSION_03];
const PROTOCOL_HELP = `the protocol version to speak, ${PROTOCOL_FLAGS.join(' or ')} (default: 1.x when the card has such an interface, else ${VERSION_03})`;

/** The exit code of a usage error, as for `conform`. */
const USAGE = 2;

/** The exit code of a command ended by Ctrl-C, as shells report it (128 + SIGINT). */
const INTERRUPTED = 130;

/** `a2a-hub card <url>`, `a2a-hub send <url> <text>` and `a2a-hub push list|get|delete <url> <taskId> [id]`: 0 ok, 1 invalid card / failed task / A2A error, 2 unreachable or refused by the URL policy, 130 interrupted. */
export function addClientCommands(program: Command, setExitCode: (code: number) => void): void {
  const cardCommand = program
    .command('card')
    .description("fetch an agent's card, check it against A2A 1.0 and print it")
    .argument('<url>', URL_ARGUMENT)
    .option('--interfaces', "print the card's interfaces, one a line, the one send would use marked *, instead of the card")
    .option(`--binding <${BINDING_FLAG}>`, `check the card offers this binding, as send --binding would; ${BINDING_HELP}`)
    .option(`--protocol <${PROTOCOL_FLAGS.join('|')}>`, `check the card offers this version, as send --protocol would; ${PROTOCOL_HELP}`);
  withAccessFlags(cardCommand).action(async (url: string, flags: CardFlags) => {
    setExitCode(await card(url, flags));
  });

  const sendCommand = program
    .command('send')
    .description('send a text message to an A2A 1.0 agent and print the outcome')
    .argument('<url>', URL_ARGUMENT)
    .argument('<text>', 'the message text')
    .option('--stream', 'use SendStreamingMessage and print updates as they arrive')
    .option('--context-id <id>', 'continue this context')
    .option('--task-id <id>', 'continue this task (e.g. one waiting for input)')
    .option('--push-url <url>', "register this webhook for the task's events (an inline push config)")
    .option('--push-token <token>', "the push config's token, for the webhook to check")
    .option('--push-auth <auth>', 'how the agent authenticates to the webhook: "SCHEME CREDENTIALS", sent as Authorization')
    .option(`--binding <${BINDING_FLAG}>`, BINDING_HELP)
    .option(`--protocol <${PROTOCOL_FLAGS.join('|')}>`, PROTOCOL_HELP);
  withAccessFlags(sendCommand).action(async (url: string, text: string, flags: SendFlags) => {
    setExitCode(await send(url, text, flags));
  });

  const push = program.command('push').description("read or delete a task's push notification configs on an A2A 1.0 agent");
  const pushCommand = (name: string, description: string): Command =>
    withAccessFlags(
      push
        .command(name)
        .description(description)
        .argument('<url>', URL_ARGUMENT)
        .argument('<taskId>', 'the task')
        .option(`--binding <${BINDING_FLAG}>`, BINDING_HELP)
        .option(`--protocol <${PROTOCOL_FLAGS.join('|')}>`, PROTOCOL_HELP),
    );
  pushCommand('list', 'print every push config of the task as JSON').action(async (url: string, taskId: string, flags: CardFlags) => {
    setExitCode(await pushConfigs('list', url, flags, async (client) => print(await collect(client.listAllPushConfigs({ taskId })))));
  });
  pushCommand('get', 'print one push config of the task as JSON')
    .argument('<id>', 'the config id')
    .action(async (url: string, taskId: string, id: string, flags: CardFlags) => {
      setExitCode(await pushConfigs('get', url, flags, async (client) => print(await client.getPushConfig({ taskId, id }))));
    });
  pushCommand('delete', 'delete one push config of the task (deleting it again succeeds too)')
    .argument('<id>', 'the config id')
    .action(async (url: string, taskId: string, id: string, flags: CardFlags) => {
      setExitCode(
        await pushConfigs('delete', url, flags, async (client) => {
          await client.deletePushConfig({ taskId, id });
          process.stdout.write(`deleted push config ${id} of task ${taskId}\n`);
        }),
      );
    });
}

/** The options every command that talks to an agent takes: credentials and how far the URL policy reaches. */
function withAccessFlags(command: Command): Command {
  return command
    .option('--token <token>', 'send Authorization: Bearer <token>')
    .option('--allow-private', 'allow private network targets (10/8, 172.16/12, 192.168/16, fc00::/7, …)')
    .option('--allow-link-local', 'allow link-local targets (169.254/16, fe80::/10)');
}

/** `a2a-hub push <verb>`: connects, runs `work`, and turns errors into the exit codes card and send use. */
async function pushConfigs(verb: string, url: string, flags: CardFlags, work: (client: A2AClient) => Promise<void>): Promise<number> {
  const command = `push ${verb}`;
  const choice = choiceOf(command, flags);
  if (choice === null) return USAGE;
  try {
    await work(await A2AClient.connect(url, { ...connectOptions(flags), ...choice }));
    return 0;
  } catch (error) {
    return failure(command, error, flags);
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function card(url: string, flags: CardFlags): Promise<number> {
  const choice = choiceOf('card', flags);
  if (choice === null) return USAGE;
  try {
    const fetched = await fetchAgentCard(url, connectOptions(flags));
    // A 0.3 card is judged as 0.3 and listed through its 1.0 reading, as the client would use it.
    const legacy = isCard03(fetched.card);
    const verdict = legacy
      ? checkValue(A2A_0_3, 'AgentCard', fetched.card, { flavour: 'exact', fieldPrefix: 'card' })
      : checkValue(A2A_1_0, 'AgentCard', fetched.card, { flavour: 'exact', fieldPrefix: 'card' });
    if (flags.interfaces !== true) process.stdout.write(`${JSON.stringify(fetched.card, null, 2)}\n`);
    if (!verdict.ok) {
      process.stderr.write(`the card at ${fetched.cardUrl} does not conform to A2A ${legacy ? VERSION_03 : PROTOCOL_VERSION}:\n`);
      for (const violation of verdict.violations) process.stderr.write(`  ${violation.field}: ${violation.description}\n`);
      return 1;
    }
    const read = legacy ? agentCardFrom03(verdict.value as V03AgentCard) : (verdict.value as AgentCard);
    return usableInterface(fetched.cardUrl, read, choice, flags.interfaces === true);
  } catch (error) {
    return failure('card', error, flags);
  }
}

async function send(url: string, text: string, flags: SendFlags): Promise<number> {
  const choice = choiceOf('send', flags);
  if (choice === null) return USAGE;
  const push = pushConfigOf(flags);
  if ('problem' in push) {
    process.stderr.write(`a2a-hub send: ${push.problem}\n`);
    return USAGE;
  }
  const pushOptions =
    push.config === undefined ? {} : { pushConfig: push.config, onSigningSecret: tellSigningSecret(push.config.id ?? '') };
  try {
    const cancelProblems: string[] = [];
    const client = await A2AClient.connect(url, {
      ...connectOptions(flags),
      ...choice,
      onCancelError: (error, taskId) =>
        cancelProblems.push(`could not cancel task ${taskId}: ${error instanceof Error ? error.message : String(error)}`),
    });
    const message: Message = {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(flags.contextId === undefined ? {} : { contextId: flags.contextId }),
      ...(flags.taskId === undefined ? {} : { taskId: flags.taskId }),
    };
    const params: SendMessageRequest = { message };
    if (flags.stream) return await sendStreaming(client, params, cancelProblems, pushOptions);
    const response = await client.sendMessage(params, pushOptions);
    if (response.message !== undefined) return printMessage(response.message);
    return printTask(response.task, push.config?.id);
  } catch (error) {
    return failure('send', error, flags);
  }
}

/** The interface --binding (case-insensitively) and --protocol ask for; null (after saying why) for a value neither takes. */
function choiceOf(command: string, flags: CardFlags): InterfaceChoice | null {
  const binding = CLIENT_BINDINGS.find((candidate) => candidate.toLowerCase() === flags.binding?.toLowerCase());
  if (flags.binding !== undefined && binding === undefined) {
    process.stderr.write(
      `a2a-hub ${command}: --binding takes ${BINDING_FLAG.replace('|', ' or ')}, not ${JSON.stringify(flags.binding)}\n`,
    );
    return null;
  }
  const protocolVersion = PROTOCOL_FLAGS.find((candidate) => candidate === flags.protocol);
  if (flags.protocol !== undefined && protocolVersion === undefined) {
    process.stderr.write(`a2a-hub ${command}: --protocol takes ${PROTOCOL_FLAGS.join(' or ')}, not ${JSON.stringify(flags.protocol)}\n`);
    return null;
  }
  return { ...(binding === undefined ? {} : { binding }), ...(protocolVersion === undefined ? {} : { protocolVersion }) };
}

/**
 * Whether send could use the card (an interface of `binding`, or of any binding the client
 * speaks), after printing, with `list`, one line per interface in the card's order, the one
 * send would use marked `*`: which one is called is not obvious from the JSON of a card that lists several.
 */
function usableInterface(cardUrl: string, card: AgentCard, choice: InterfaceChoice, list: boolean): number {
  const selected = pickInterface(card, choice);
  if (list) {
    for (const entry of card.supportedInterfaces) {
      const tenant = entry.tenant === undefined || entry.tenant === '' ? '' : ` tenant=${entry.tenant}`;
      process.stdout.write(`${entry === selected ? '*' : ' '} ${entry.protocolBinding} ${entry.protocolVersion} ${entry.url}${tenant}\n`);
    }
  }
  // Without --binding or --protocol a card is printed, not judged by what this client speaks.
  if (selected !== undefined || (choice.binding === undefined && choice.protocolVersion === undefined)) return 0;
  process.stderr.write(`a2a-hub card: ${noUsableInterface(cardUrl, card, choice).message}; send cannot use it\n`);
  return 1;
}

/** Loopback stays allowed (the default): the flags only widen the policy. */
function connectOptions(flags: CardFlags): ConnectOptions {
  return {
    ...(flags.token === undefined ? {} : { token: flags.token }),
    urlPolicy: { allowPrivate: flags.allowPrivate === true, allowLinkLocal: flags.allowLinkLocal === true },
  };
}

/**
 * The signing secret an agent (a2a-hub) returns once for an inline config: said on stderr, apart
 * from the outcome on stdout, so that piping the outcome does not carry the secret along.
 */
function tellSigningSecret(configId: string): (secret: string) => void {
  return (secret) =>
    process.stderr.write(`a2a-hub send: webhook signing secret of push config ${configId} (shown once, keep it): ${secret}\n`);
}

/** Ctrl-C aborts the stream; the client then cancels the remote task before the abort surfaces here. */
async function sendStreaming(
  client: A2AClient,
  params: SendMessageRequest,
  cancelProblems: readonly string[],
  pushOptions: PushSendOptions,
): Promise<number> {
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort(new Error('interrupted'));
  // once: a second Ctrl-C falls back to Node's default and ends the process at once.
  process.once('SIGINT', onSigint);
  let openLine = false;
  /** The text shown so far of each artifact, by id. */
  const printed = new Map<string, string>();
  let lastState: TaskState | undefined;
  let ids: { taskId: string; contextId?: string } | undefined;
  const endLine = (): void => {
    if (openLine) process.stdout.write('\n');
    openLine = false;
  };
  try {
    for await (const frame of client.sendStreamingMessage(params, { ...pushOptions, signal: interrupt.signal })) {
      if (frame.message !== undefined) {
        endLine();
        return printMessage(frame.message);
      }
      const status = frame.task?.status ?? frame.statusUpdate?.status;
      if (frame.task !== undefined)
        ids = { taskId: frame.task.id, ...(frame.task.contextId === undefined ? {} : { contextId: frame.task.contextId }) };
      if (frame.statusUpdate !== undefined) ids = { taskId: frame.statusUpdate.taskId, contextId: frame.statusUpdate.contextId };
      if (status !== undefined && status.state !== lastState) {
        endLine();
        lastState = status.state;
        const note = textOf(status.message);
        process.stdout.write(`status: ${shortState(status.state)}${note ? ` (${note})` : ''}\n`);
      }
      if (frame.artifactUpdate !== undefined) {
        const update = frame.artifactUpdate;
        const chunk = textOf(update.artifact);
        const shown = printed.get(update.artifact.artifactId);
        const replaces = update.append !== true && shown !== undefined;
        // A chunk that replaces text already on the line (the standard preset closes its streamed answer with the whole
        // text) prints only what is new; one that says something else starts a line of its own.
        if (replaces && openLine && chunk.startsWith(shown)) process.stdout.write(chunk.slice(shown.length));
        else {
          if (update.append !== true) endLine();
          process.stdout.write(chunk);
        }
        printed.set(update.artifact.artifactId, update.append === true ? `${shown ?? ''}${chunk}` : chunk);
        openLine = true;
        if (update.lastChunk === true) endLine();
      }
    }
  } catch (error) {
    if (!interrupt.signal.aborted) throw error;
    endLine();
    for (const problem of cancelProblems) process.stderr.write(`a2a-hub send: ${problem}\n`);
    const canceled = ids !== undefined && (lastState === undefined || !isFinalState(lastState)) && cancelProblems.length === 0;
    process.stderr.write(`a2a-hub send: interrupted${canceled ? `; task ${ids?.taskId ?? ''} canceled` : ''}\n`);
    return INTERRUPTED;
  } finally {
    process.off('SIGINT', onSigint);
  }
  endLine();
  if (lastState === undefined) {
    process.stderr.write('a2a-hub send: the stream ended without a task state\n');
    return 1;
  }
  process.stdout.write(`final state: ${shortState(lastState)}\n`);
  if (ids !== undefined) process.stdout.write(`task: ${ids.taskId}\ncontext: ${ids.contextId ?? '(none)'}\n`);
  if (pushOptions.pushConfig?.id !== undefined) process.stdout.write(`push config: ${pushOptions.pushConfig.id}\n`);
  return isFailureState(lastState) ? 1 : 0;
}

function printMessage(message: Message): number {
  process.stdout.write(`${textOf(message)}\n`);
  if (message.contextId !== undefined) process.stdout.write(`context: ${message.contextId}\n`);
  return 0;
}

function printTask(task: Task | undefined, pushConfigId: string | undefined): number {
  if (task === undefined) return 1;
  const state = task.status.state;
  process.stdout.write(`state: ${shortState(state)}\n`);
  const note = textOf(task.status.message);
  if (note) process.stdout.write(`status message: ${note}\n`);
  for (const artifact of task.artifacts ?? []) process.stdout.write(`${textOf(artifact)}\n`);
  process.stdout.write(`task: ${task.id}\ncontext: ${task.contextId ?? '(none)'}\n`);
  if (pushConfigId !== undefined) process.stdout.write(`push config: ${pushConfigId}\n`);
  return isFailureState(state) ? 1 : 0;
}

function shortState(state: TaskState): string {
  return state.replace(/^TASK_STATE_/, '');
}

const UNAUTHENTICATED: ErrorName = 'UnauthenticatedError';

const FLAG_BY_RULE: Partial<Record<UrlPolicyError['rule'], string>> = {
  allowPrivate: '--allow-private',
  allowLinkLocal: '--allow-link-local',
};

function failure(command: string, error: unknown, flags: CardFlags): number {
  if (error instanceof UrlPolicyError) {
    const flag = FLAG_BY_RULE[error.rule];
    // On the command line the way to allow it is a flag, not a library option.
    const message = flag === undefined ? error.message : withFlagAdvice(error.message, flag);
    process.stderr.write(`a2a-hub ${command}: ${message}\n`);
    return 2;
  }
  if (error instanceof A2ATransportError) {
    process.stderr.write(`a2a-hub ${command}: ${error.message}\n`);
    return 2;
  }
  if (error instanceof A2AError) {
    const hint =
      error.name === UNAUTHENTICATED
        ? flags.token === undefined
          ? '; pass --token <token>'
          : '; the token given with --token was refused'
        : '';
    process.stderr.write(`a2a-hub ${command}: ${error.name} (${error.code}): ${error.message}${hint}\n`);
    return 1;
  }
  throw error;
}

/** "… set urlPolicy.allowPrivate: true, or … to allow it" as the command line says it: "… pass --allow-private to allow it". */
function withFlagAdvice(message: string, flag: string): string {
  const start = message.lastIndexOf('set urlPolicy.');
  return start === -1 || !message.endsWith(' to allow it') ? message : `${message.slice(0, start)}pass ${flag} to allow it`;
}
