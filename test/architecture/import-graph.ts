import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

/** One row of layers.json. */
export interface Layer {
  readonly name: string;
  /** `dir/` for a folder and everything below it, `dir/*.ts` for the files directly in it, or one file. */
  readonly paths: readonly string[];
  readonly may: readonly string[];
  readonly why: string;
}

export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** As written in the source. */
  readonly specifier: string;
}

export const SOURCE_ROOTS = ['src', 'generated', 'conformance', 'codegen'] as const;

export function loadLayers(root: string): Layer[] {
  const table = JSON.parse(readFileSync(join(root, 'layers.json'), 'utf8')) as { layers: Layer[] };
  return table.layers;
}

/** Every .ts/.js source below the roots, as repo-relative POSIX path → text. */
export function readSources(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) visit(path);
      else if (/\.(ts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts'))
        files.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
    }
  };
  for (const dir of SOURCE_ROOTS) visit(join(root, dir));
  return files;
}

/**
 * The relative imports of each file (static, re-exports, dynamic and `import type`), resolved
 * to repo paths: `./x.js` names `x.ts` when that is the source. Package imports are left out.
 */
export function importEdges(files: ReadonlyMap<string, string>): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [from, text] of files) {
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!specifier.startsWith('.')) continue;
      const written = posix.normalize(posix.join(posix.dirname(from), specifier));
      const source = written.replace(/\.js$/, '.ts');
      edges.push({ from, to: files.has(source) ? source : written, specifier });
    }
  }
  return edges;
}

/** The most specific layer a path belongs to: a file row beats `dir/*.ts`, which beats the longest folder. */
export function layerOf(path: string, layers: readonly Layer[]): Layer | undefined {
  let best: { layer: Layer; rank: number } | undefined;
  for (const layer of layers) {
    for (const pattern of layer.paths) {
      let rank = -1;
      if (pattern === path) rank = 10_000;
      else if (pattern.endsWith('/*.ts')) rank = dirname(path) === pattern.slice(0, -'/*.ts'.length) && /\.ts$/.test(path) ? 5000 : -1;
      else if (pattern.endsWith('/') && path.startsWith(pattern)) rank = pattern.length;
      if (rank > (best?.rank ?? -1)) best = { layer, rank };
    }
  }
  return best?.layer;
}

/** Imports that cross into a layer the importing layer may not use, each as one readable line. */
export function layeringViolations(edges: readonly ImportEdge[], layers: readonly Layer[]): string[] {
  const problems: string[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from, layers);
    const to = layerOf(edge.to, layers);
    if (from === undefined) {
      problems.push(`${edge.from} is in no layer of layers.json`);
      continue;
    }
    if (to === undefined) {
      problems.push(`${edge.from} imports ${edge.specifier}, which is in no layer of layers.json`);
      continue;
    }
    if (to.name === from.name || from.may.includes(to.name)) continue;
    problems.push(
      `${edge.from} imports ${edge.specifier} (layer ${to.name}); layer ${from.name} may import only ${[from.name, ...from.may].join(', ')}`,
    );
  }
  return [...new Set(problems)];
}

/** Folder-level cycles: pairs of folders that import each other, directly or through others. */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = dirname(from);
    const b = dirname(to);
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)?.add(b);
  }
  // Tarjan's strongly connected components; any component of two or more folders is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

/** Files a module loads, directly or through others. */
export function importClosure(start: string, edges: readonly ImportEdge[]): Set<string> {
  const seen = new Set<string>();
  const pending = [start];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const edge of edges) {
      if (edge.from === file && !seen.has(edge.to)) {
        seen.add(edge.to);
        pending.push(edge.to);
      }
    }
  }
  return seen;
}
