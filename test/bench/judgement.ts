import { cpuPerRequest, type ScenarioName, type SideResult } from './measure.js';
import { fixed, median } from './report.js';

/**
 * What the bench concludes from its measurements: the ratios it reports, the order of a
 * round's runs, issue 21's targets, and which side limited the bare reference. Pure functions
 * of the results, apart from run.ts so that tests can give them results and check the verdicts.
 */

export type Side = 'bare' | 'hub' | 'sdk';

export interface Round {
  readonly hub: SideResult;
  readonly bare: SideResult;
  /** The @a2a-js/sdk reference, for the scenarios it runs. */
  readonly sdk?: SideResult;
}

export interface ScenarioResult {
  readonly rounds: readonly Round[];
  /** All rounds of each side taken together. */
  readonly hub: SideResult;
  readonly bare: SideResult;
  readonly sdk?: SideResult;
}

/** The median of the rounds' ratios: each round compares runs seconds apart. */
export function roundRatios(result: ScenarioResult): { ratio: number; cpuRatio: number; each: number[]; sdkRatio?: number } {
  const each = result.rounds.map((round) => round.hub.load.reqPerSec / round.bare.load.reqPerSec);
  const cpu = result.rounds.map((round) => cpuPerRequest(round.bare) / cpuPerRequest(round.hub));
  const bySdk = result.rounds.flatMap((round) => (round.sdk === undefined ? [] : [round.hub.load.reqPerSec / round.sdk.load.reqPerSec]));
  return { ratio: median(each), cpuRatio: median(cpu), each, ...(bySdk.length === 0 ? {} : { sdkRatio: median(bySdk) }) };
}

/**
 * The order of a round's runs: the machine's speed drifts over seconds, so the hub runs in the
 * middle, next to each reference, and the references take turns going first.
 */
export function roundOrder(round: number, withSdk: boolean): readonly Side[] {
  const first: Side = round % 2 === 1 ? 'bare' : 'sdk';
  const last: Side = first === 'bare' ? 'sdk' : 'bare';
  if (withSdk) return [first, 'hub', last];
  return round % 2 === 1 ? ['bare', 'hub'] : ['hub', 'bare'];
}

export interface Verdict {
  readonly target: string;
  readonly met: boolean;
  readonly measured: string;
}

/** Issue 21's targets, judged on the scenarios this run measured (informational, never asserted). */
export function targetVerdicts(results: ReadonlyMap<ScenarioName, ScenarioResult>): Verdict[] {
  const verdicts: Verdict[] = [];
  const judge = (target: string, met: boolean, measured: string): void => void verdicts.push({ target, met, measured });
  const ratioOf = (name: ScenarioName): number | undefined => {
    const result = results.get(name);
    return result === undefined ? undefined : roundRatios(result).ratio;
  };
  // The p99 of all rounds taken together, which is the worst round's or above it.
  const p99Of = (name: ScenarioName): number => results.get(name)?.hub.load.p99 ?? Number.NaN;
  const card = ratioOf('card');
  if (card !== undefined) judge('agent card at least 0.45 of bare', card >= 0.45, fixed(card, 2));
  const send = ratioOf('send');
  if (send !== undefined) {
    judge('blocking SendMessage at least 0.30 of bare', send >= 0.3, fixed(send, 2));
    judge('blocking SendMessage p99 under 10 ms', p99Of('send') < 10, `${fixed(p99Of('send'), 2)} ms, worst round`);
  }
  const stream = ratioOf('stream');
  if (stream !== undefined) {
    judge('SendStreamingMessage at least 0.25 of bare', stream >= 0.25, fixed(stream, 2));
    judge('SendStreamingMessage p99 under 15 ms', p99Of('stream') < 15, `${fixed(p99Of('stream'), 2)} ms, worst round`);
  }
  for (const [rest, rpc] of [
    ['rest-send', 'send'],
    ['rest-stream', 'stream'],
  ] as const) {
    const restResult = results.get(rest);
    const rpcResult = results.get(rpc);
    if (restResult === undefined || rpcResult === undefined) continue;
    const share = restResult.hub.load.reqPerSec / rpcResult.hub.load.reqPerSec;
    judge(`${rest} within 10 % of JSON-RPC`, share >= 0.9, `${fixed(share, 2)} of ${rpc}`);
  }
  return verdicts;
}

/**
 * What limited a bare reference's run: the side near a whole core. A server at 90 % or more of a
 * core while the generator is below is the server; a generator at 90 % or more is the
 * generator (the bare ratio is then a lower bound); else neither.
 */
export function bareLimit(bare: SideResult): { server: number; generator: number; limit: 'server' | 'generator' | 'neither' } {
  const seconds = bare.load.durationSeconds;
  const server = bare.serverCpuMicros / 1e6 / seconds;
  const generator = bare.loadgenCpuMicros / 1e6 / seconds;
  const limit = server >= 0.9 && generator < 0.9 ? 'server' : generator >= 0.9 ? 'generator' : 'neither';
  return { server, generator, limit };
}
