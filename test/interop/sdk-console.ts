import { inspect } from 'node:util';
import { A2AError } from '@a2a-js/sdk/errors';
import { A2AError as A2AError03 } from 'a2a-sdk-03/server';
import { ERRORS as ERRORS_03 } from '../../generated/a2a/0.3/errors.js';

/**
 * The @a2a-js/sdk server has no logger option: it writes every A2A error it answers with to
 * console.error (and a referenced task it cannot find to console.warn), so each bad request a
 * conformance probe sends on purpose would print a stack trace in a green test run. While a
 * capture is open, those lines are recorded instead of printed, and so is the console.info line
 * its push sender writes for every webhook delivery. Everything else, including an
 * internal error inside the SDK or anything our own code logs, still goes to the console.
 */
export interface SdkConsoleCapture {
  /** What the SDK logged since the capture opened, one line per call (`Name: message` for errors). */
  lines(): string[];
  /** Ends the capture; the console is restored when the last open capture ends. */
  stop(): void;
}

/** Where the SDK's bundles are installed (1.x, and 0.3 under its alias): a console call made from there is the SDK's own. */
const SDK_FRAMES = ['/node_modules/@a2a-js/sdk/', '/node_modules/a2a-sdk-03/'];
const REFERENCE_TASK_WARNING = /^Reference task .* not found\.$/;
const PUSH_SENT = /^Push notification sent for task_id=/;
/** 0.3's ResultManager notes that a direct Message belongs to no task: what such an answer is. */
const MESSAGE_WITHOUT_TASK = /^Task ID not found for event message\.$/;
const METHODS = ['error', 'warn', 'info'] as const;

const openCaptures = new Set<string[]>();
let restoreConsole: (() => void) | undefined;

export function captureSdkConsole(): SdkConsoleCapture {
  restoreConsole ??= divertSdkLines();
  const lines: string[] = [];
  openCaptures.add(lines);
  return {
    lines: () => [...lines],
    stop() {
      if (!openCaptures.delete(lines) || openCaptures.size > 0) return;
      restoreConsole?.();
      restoreConsole = undefined;
    },
  };
}

function divertSdkLines(): () => void {
  type ConsoleMethod = (this: Console, ...args: unknown[]) => void;
  const originals = METHODS.map((method) => [method, Reflect.get(console, method) as ConsoleMethod] as const);
  for (const [method, original] of originals) {
    const diverted = (...args: unknown[]): void => {
      if (!calledFromSdk(diverted) || !isAnsweredError(args)) return original.apply(console, args);
      const line = args.map(describeArgument).join(' ');
      for (const lines of openCaptures) lines.push(line);
    };
    console[method] = diverted;
  }
  return () => {
    for (const [method, original] of originals) console[method] = original;
  };
}

function calledFromSdk(diverted: (...args: unknown[]) => void): boolean {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, diverted);
  // Line 0 is the header; line 1 is the frame that called console.
  const caller = holder.stack?.split('\n')[1] ?? '';
  return SDK_FRAMES.some((frame) => caller.includes(frame));
}

/**
 * An A2A error the SDK also sent to the client (the wire answer tests judge), its warning
 * about an unknown referenceTaskId, its note of a push delivery that succeeded, or 0.3's note that a
 * direct Message has no task; an INTERNAL_ERROR is a fault in the agent and stays visible.
 */
function isAnsweredError(args: readonly unknown[]): boolean {
  if (args.length === 1 && typeof args[0] === 'string')
    return [REFERENCE_TASK_WARNING, PUSH_SENT, MESSAGE_WITHOUT_TASK].some((pattern) => pattern.test(args[0] as string));
  return args.some(
    (arg) =>
      (arg instanceof A2AError && arg.reason !== 'INTERNAL_ERROR') ||
      // 0.3's errors carry a code, not a reason.
      (arg instanceof A2AError03 && arg.code !== ERRORS_03.InternalError.code),
  );
}

function describeArgument(arg: unknown): string {
  if (arg instanceof Error) return `${arg.name}: ${arg.message}`;
  return typeof arg === 'string' ? arg : inspect(arg);
}
