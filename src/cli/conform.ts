import { writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Command } from 'commander';
import { BINDING_FLAGS, PROTOCOL_FLAGS } from '../../conformance/core/bindings.js';
import { isProfileId, PROFILES } from '../../conformance/core/profiles.js';
import { TargetError } from '../../conformance/core/target.js';
import { loadBaseline } from '../../conformance/report/baseline.js';
import { renderConsole } from '../../conformance/report/console.js';
import { renderHtml } from '../../conformance/report/html.js';
import { renderJson } from '../../conformance/report/json.js';
import { renderJUnit } from '../../conformance/report/junit.js';
import { conformHeaders, runConformance, type ConformOptions } from '../../conformance/suite.js';

interface ConformFlags {
  token?: string;
  header?: string[];
  binding: string;
  protocol: string;
  level: string;
  runs: string;
  seed?: string;
  only?: string;
  skip?: string;
  baseline?: string;
  json?: string;
  junit?: string;
  html?: string;
  timeout: string;
  webhookHost?: string;
  webhookTimeout: string;
  profile?: string;
  cooperative?: boolean;
  blackBox?: boolean;
  verbose?: boolean;
}

/** `a2a-hub conform <url>`: exit 0 when no MUST failed, 1 when one did, 2 when the suite could not run. */
export function addConformCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('conform')
    .description('test any A2A 1.0 or 0.3 endpoint (card URL, base URL or JSON-RPC URL) against the spec of each version it declares')
    .argument(
      '<url>',
      "the agent's card URL, its JSON-RPC endpoint URL (card at <url>/agent-card.json or the well-known card naming it; none: a minimal card is assumed) or a base URL (card at /.well-known/agent-card.json)",
    )
    .option('--token <token>', 'send Authorization: Bearer <token> with every request')
    .option('--header <header...>', "extra request header, 'Name: value' (repeatable)")
    .option(
      '--binding <binding>',
      'protocol binding to test: jsonrpc, http+json, or all (every binding the card declares that the suite speaks)',
      'all',
    )
    .option(
      '--protocol <version>',
      `protocol version to test: ${Object.keys(PROTOCOL_FLAGS).join(', ')} (every version the card declares that the suite has a catalog of)`,
      'all',
    )
    .option('--level <level>', 'lowest requirement level to test: must, should or may', 'may')
    .option('--runs <n>', 'fast-check runs per property', '50')
    .option('--seed <n>', 'fast-check seed (printed in every report; reuse it to replay)')
    .option('--only <ids>', 'comma-separated requirement ids to test')
    .option('--skip <ids>', 'comma-separated requirement ids to leave out')
    .option('--baseline <file>', 'expected failures; an unlisted failure or a listed one that now passes fails the run')
    .option('--json <file>', 'write the JSON report (schema: spec/conformance/report.schema.json)')
    .option('--junit <file>', 'write a JUnit XML report')
    .option('--html <file>', 'write a self-contained HTML report')
    .option('--timeout <ms>', 'per-request timeout', '10000')
    .option(
      '--webhook-host <host>',
      "address the push checks' webhook receiver listens on and gives the agent (default 127.0.0.1; use one the agent can reach, e.g. from a container)",
    )
    .option('--webhook-timeout <ms>', 'how long a push check waits for webhook deliveries (a slow agent may need more)', '20000')
    .option(
      '--profile <profile>',
      'how to ask the agent for lifecycles: directives (a2a-hub test directives, docs/test-directives.md), tck (the official TCK messageId prefixes) or none (black-box); default: the one the card advertises, else none',
    )
    .option('--cooperative', 'same as --profile directives')
    .option('--black-box', 'same as --profile none')
    .option('--verbose', 'list every requirement in the console report, passed ones included')
    .action(async (url: string, flags: ConformFlags) => {
      setExitCode(await conform(url, flags));
    });
}

async function conform(url: string, flags: ConformFlags): Promise<number> {
  const usage = (message: string): number => {
    process.stderr.write(`a2a-hub conform: ${message}\n`);
    return 2;
  };
  const binding = Object.hasOwn(BINDING_FLAGS, flags.binding.toLowerCase()) ? BINDING_FLAGS[flags.binding.toLowerCase()] : undefined;
  if (binding === undefined) return usage(`--binding takes ${Object.keys(BINDING_FLAGS).join(', ')}, got ${JSON.stringify(flags.binding)}`);
  const protocol = Object.hasOwn(PROTOCOL_FLAGS, flags.protocol) ? PROTOCOL_FLAGS[flags.protocol] : undefined;
  if (protocol === undefined)
    return usage(`--protocol takes ${Object.keys(PROTOCOL_FLAGS).join(', ')}, got ${JSON.stringify(flags.protocol)}`);
  if (!['must', 'should', 'may'].includes(flags.level)) return usage('--level must be must, should or may');
  const runs = Number(flags.runs);
  const timeoutMs = Number(flags.timeout);
  const webhookTimeoutMs = Number(flags.webhookTimeout);
  const seed = flags.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(flags.seed);
  if (
    !Number.isInteger(runs) ||
    runs < 1 ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 1 ||
    !Number.isInteger(webhookTimeoutMs) ||
    webhookTimeoutMs < 1 ||
    !Number.isInteger(seed)
  ) {
    return usage('--runs, --timeout, --webhook-timeout and --seed take whole numbers');
  }
  const webhookHost = flags.webhookHost?.replace(/^\[(.*)\]$/, '$1');
  // The address is both bound and handed to the agent, so it must be one the agent can dial.
  if (webhookHost !== undefined && (isIP(webhookHost) === 0 || webhookHost === '0.0.0.0' || webhookHost === '::')) {
    return usage(`--webhook-host takes an IP address of this machine that the agent can reach, got ${JSON.stringify(flags.webhookHost)}`);
  }
  const chosen = [flags.profile, flags.cooperative ? 'directives' : undefined, flags.blackBox ? 'none' : undefined].filter(
    (value) => value !== undefined,
  );
  if (new Set(chosen).size > 1) return usage(`--profile, --cooperative and --black-box disagree (${chosen.join(', ')})`);
  const profile = chosen[0];
  if (profile !== undefined && !isProfileId(profile))
    return usage(`--profile takes ${Object.keys(PROFILES).join(', ')}, got ${JSON.stringify(profile)}`);
  const headers: Record<string, string> = {};
  for (const header of flags.header ?? []) {
    const colon = header.indexOf(':');
    const name = colon === -1 ? '' : header.slice(0, colon);
    if (name === '' || /\s/.test(name)) return usage(`--header takes 'Name: value', got ${JSON.stringify(header)}`);
    headers[name.toLowerCase()] = header.slice(colon + 1).trimStart();
  }
  let baseline: Map<string, string> | undefined;
  try {
    baseline = flags.baseline === undefined ? undefined : loadBaseline(flags.baseline);
  } catch (error) {
    return usage((error as Error).message);
  }
  const tty = process.stdout.isTTY === true;
  const options: ConformOptions = {
    token: flags.token,
    headers,
    binding,
    protocol,
    level: flags.level as ConformOptions['level'],
    runs,
    seed,
    timeoutMs,
    webhookTimeoutMs,
    ...(webhookHost === undefined ? {} : { webhookHost }),
    ...(profile === undefined ? {} : { profile }),
    ...(flags.only ? { only: flags.only.split(',').map((id) => id.trim()) } : {}),
    ...(flags.skip ? { skip: flags.skip.split(',').map((id) => id.trim()) } : {}),
    ...(baseline ? { baseline } : {}),
    onProgress: ({ check, index, total, binding: on }) => {
      const version = check.protocol === undefined ? '' : `${check.protocol} `;
      const line = `[${index + 1}/${total}] ${version}${on === undefined ? '' : `${on} `}${check.id}: ${check.title}`;
      if (tty) process.stdout.write(`\r\x1b[2K${line.slice(0, (process.stdout.columns || 80) - 1)}`);
      else process.stdout.write(`${line}\n`);
    },
  };
  try {
    const { report, exitCode } = await runConformance(url, options);
    if (tty) process.stdout.write('\r\x1b[2K');
    process.stdout.write(renderConsole(report, { color: tty && !process.env['NO_COLOR'], verbose: flags.verbose === true }));
    if (flags.json) writeFileSync(flags.json, renderJson(report));
    if (flags.junit) writeFileSync(flags.junit, renderJUnit(report));
    if (flags.html) writeFileSync(flags.html, renderHtml(report));
    return exitCode;
  } catch (error) {
    if (error instanceof TargetError && error.unauthenticated) {
      return usage(
        `${error.message}; ${conformHeaders(options)['authorization'] === undefined ? 'pass --token <token>' : 'check the token given with --token or --header'}`,
      );
    }
    if (error instanceof TargetError) return usage(error.message);
    throw error;
  }
}
