import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from './report.js';

/**
 * Where the hub's main thread spent its time under load, from the V8 CPU profile that
 * BENCH_CPU_PROF makes the load-test hub write (--cpu-prof): the busiest window of the
 * measured length, its self time by module (a folder of src/, a package, a node: module, or a
 * V8 bucket such as the garbage collector) and by function, and the inclusive time of the
 * functions that hold most of it. A native call (a SQLite statement, a socket write) counts
 * as self time of the JavaScript function that made it.
 */

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  readonly file: string;
  readonly windowSeconds: number;
  /** Share of the window the thread was not idle. */
  readonly busy: number;
  readonly byModule: readonly (readonly [string, number])[];
  readonly byFunction: readonly (readonly [string, number])[];
  readonly inclusive: readonly (readonly [string, number])[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The profiles a run wrote to `dir`, the main thread's (the largest) first. */
export function profilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(dir, name))
    .sort((a, b) => readFileSync(b).length - readFileSync(a).length);
}

export function summarize(file: string, windowSeconds: number, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  const deltas = profile.timeDeltas;
  const times: number[] = [];
  let clock = profile.startTime;
  for (const delta of deltas) times.push((clock += delta));

  // The window with the most non-idle time: the measured run, not start-up or the pauses between runs.
  const width = windowSeconds * 1e6;
  let best = { busy: -1, from: 0, to: -1 };
  let busy = 0;
  let from = 0;
  for (let to = 0; to < times.length; to += 1) {
    if (!idle.has(profile.samples[to] ?? -1)) busy += deltas[to] ?? 0;
    while ((times[to] ?? 0) - (times[from] ?? 0) > width) {
      if (!idle.has(profile.samples[from] ?? -1)) busy -= deltas[from] ?? 0;
      from += 1;
    }
    if (busy > best.busy) best = { busy, from, to };
  }

  const self = new Map<number, number>();
  let total = 0;
  for (let index = best.from; index <= best.to; index += 1) {
    const id = profile.samples[index] ?? -1;
    const delta = deltas[index] ?? 0;
    self.set(id, (self.get(id) ?? 0) + delta);
    total += delta;
  }
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, value: number): void => void map.set(key, (map.get(key) ?? 0) + value);
  for (const [id, time] of self) {
    const node = byId.get(id);
    if (node === undefined) continue;
    add(byModule, moduleOf(node), time);
    add(byFunction, functionOf(node), time);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const name = functionOf(byId.get(at) ?? node);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, time);
    }
  }
  const ranked = (map: Map<string, number>): [string, number][] =>
    [...map]
      .map(([name, time]): [string, number] => [name, time / Math.max(1, total)])
      .sort((a, b) => b[1] - a[1])
      .slice(0, top);
  return {
    file,
    windowSeconds: ((times[best.to] ?? 0) - (times[best.from] ?? 0)) / 1e6,
    busy: best.busy / Math.max(1, total),
    byModule: ranked(byModule),
    byFunction: ranked(byFunction),
    // The root and the event loop's own frames hold everything; they say nothing.
    inclusive: ranked(inclusive).filter(
      ([name]) => !/^\((root|program)\)|processTicksAndRejections|runMicrotasks|processImmediate/.test(name),
    ),
  };
}

function shortUrl(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(ROOT)) {
    const inRepo = path.slice(ROOT.length);
    const modules = inRepo.lastIndexOf('node_modules/');
    return modules === -1 ? inRepo : inRepo.slice(modules + 'node_modules/'.length);
  }
  return path;
}

function functionOf(node: ProfileNode): string {
  const url = shortUrl(node.callFrame.url);
  return url === '' ? node.callFrame.functionName : `${node.callFrame.functionName || '(anonymous)'} ${url}`;
}

function moduleOf(node: ProfileNode): string {
  const url = shortUrl(node.callFrame.url);
  if (url === '') return node.callFrame.functionName;
  if (url.startsWith('node:')) return url.replace('node:internal/', 'node:').split('/')[0] ?? url;
  const parts = url.split('/');
  if (url.startsWith('src/') || url.startsWith('generated/')) return parts.slice(0, 2).join('/');
  return parts.slice(0, url.startsWith('@') ? 2 : 1).join('/');
}

export function printProfile(summary: ProfileSummary, label: string): void {
  const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
  console.log(
    `\nCPU profile of the ${label} (${summary.file}): its busiest ${summary.windowSeconds.toFixed(1)} s, ${percent(summary.busy)} busy\n`,
  );
  const rows = Array.from({ length: Math.max(summary.byModule.length, summary.byFunction.length) }, (_, index) => {
    const module = summary.byModule[index];
    const fn = summary.byFunction[index];
    return [module ? percent(module[1]) : '', module?.[0] ?? '', fn ? percent(fn[1]) : '', fn?.[0] ?? ''];
  });
  console.log(table(['self', 'module', 'self', 'function'], rows, (column) => column % 2 === 0));
  // Function names without their files, which the table above gives.
  const named = (name: string): string => name.replace(/ [^ ]*[./][^ ]*$/, '');
  console.log(`\ninclusive: ${summary.inclusive.map(([name, share]) => `${named(name)} ${percent(share)}`).join(', ')}`);
}
