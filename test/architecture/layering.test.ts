import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { folderCycles, importClosure, importEdges, layerOf, layeringViolations, loadLayers, readSources } from './import-graph.js';

const layers = loadLayers(REPO_ROOT);
const sources = readSources(REPO_ROOT);
const edges = importEdges(sources);

describe('layering (layers.json)', () => {
  it('puts every source file in a layer, and every layer names known layers in an order without cycles', () => {
    expect([...sources.keys()].filter((path) => layerOf(path, layers) === undefined)).toEqual([]);
    const names = new Set(layers.map((layer) => layer.name));
    expect(layers.flatMap((layer) => layer.may.filter((name) => !names.has(name)).map((name) => `${layer.name} → ${name}`))).toEqual([]);
    // Each layer may only use layers listed before it: the table is a stack, not a web.
    const seen = new Set<string>();
    const upward: string[] = [];
    for (const layer of layers) {
      upward.push(...layer.may.filter((name) => !seen.has(name)).map((name) => `${layer.name} may use ${name}, which is listed after it`));
      seen.add(layer.name);
    }
    expect(upward).toEqual([]);
  });

  it('every import stays within what its layer may use', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(layeringViolations(edges, layers)).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('generated/ imports nothing hand-written, and codegen runs without generated/', () => {
    expect(edges.filter((edge) => edge.from.startsWith('generated/') && !edge.to.startsWith('generated/'))).toEqual([]);
    expect([...importClosure('codegen/main.ts', edges)].filter((path) => !path.startsWith('codegen/'))).toEqual(
      ['src/protocol/json-schema.ts'].filter((path) => importClosure('codegen/main.ts', edges).has(path)),
    );
    expect([...importClosure('codegen/main.ts', edges)].some((path) => path.startsWith('generated/'))).toBe(false);
  });

  it('reports a planted violation, a planted cycle and a file outside every layer', () => {
    const planted = new Map(sources);
    planted.set(
      'src/http/planted.ts',
      "import { InboundRegistry } from '../inbound/inbound-registry.js';\nexport type X = InboundRegistry;\n",
    );
    planted.set('src/inbound/planted.ts', "export type { X } from '../http/planted.js';\n");
    planted.set('elsewhere/planted.ts', 'export {};\n');
    const plantedEdges = importEdges(planted);
    expect(layeringViolations(plantedEdges, layers)).toEqual([
      'src/http/planted.ts imports ../inbound/inbound-registry.js (layer inbound); layer http may import only http, server, protocol, schema-helpers, generated, support',
      'src/inbound/planted.ts imports ../http/planted.js (layer http); layer inbound may import only inbound, server, executors, store, protocol, schema-helpers, generated, support',
    ]);
    expect(folderCycles(plantedEdges)).toEqual([['src/http', 'src/inbound']]);
    expect(layerOf('elsewhere/planted.ts', layers)).toBeUndefined();
    expect(layerOf('src/protocol/json-schema.ts', layers)?.name).toBe('schema-helpers');
    expect(layerOf('src/hub.ts', layers)?.name).toBe('hub');
  });
});

describe('the eslint rule made of layers.json', () => {
  // Type-aware rules need a file on disk; the layering rule does not, so they are left out here.
  const eslint = new ESLint({
    cwd: REPO_ROOT,
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  });
  const restricted = async (path: string, text: string): Promise<string[]> => {
    const [result] = await eslint.lintText(text, { filePath: `${REPO_ROOT}/${path}` });
    return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
  };

  it('refuses an import into a layer the folder may not use, and allows the ones it may', async () => {
    expect(await restricted('src/http/planted.ts', "export { InboundRegistry } from '../inbound/inbound-registry.js';\n")).toHaveLength(1);
    expect(await restricted('src/http/planted.ts', "export { a2aError } from '../protocol/a2a-error.js';\n")).toEqual([]);
    expect(
      await restricted('conformance/checks/support/planted.ts', "export { echoExecutor } from '../../../src/executors/echo.js';\n"),
    ).toHaveLength(1);
    expect(
      await restricted('conformance/checks/support/planted.ts', "export { isRecord } from '../../../src/support/records.js';\n"),
    ).toEqual([]);
    expect(
      await restricted('src/http/new-folder/planted.ts', "export { InboundRegistry } from '../../inbound/inbound-registry.js';\n"),
    ).toHaveLength(1);
    expect(await restricted('codegen/planted.ts', "export { ERRORS } from '../generated/a2a/1.0/errors.js';\n")).toHaveLength(1);
    expect(await restricted('codegen/planted.ts', "export { oneofMembers } from '../src/protocol/json-schema.js';\n")).toEqual([]);
    expect(await restricted('codegen/planted.ts', "export { a2aError } from '../src/protocol/a2a-error.js';\n")).toHaveLength(1);
    expect(await restricted('src/protocol/json-schema.ts', "export { a2aError } from './a2a-error.js';\n")).toHaveLength(1);
    expect(await restricted('src/control/planted.ts', "export type { Hub } from '../hub.js';\n")).toHaveLength(1);
  });

  it('cannot be switched off by a comment in layered code', async () => {
    const text = "// eslint-disable-next-line no-restricted-imports\nexport { InboundRegistry } from '../inbound/inbound-registry.js';\n";
    expect(await restricted('src/http/planted.ts', text)).toHaveLength(1);
    const blanket = "/* eslint-disable */\nexport { InboundRegistry } from '../inbound/inbound-registry.js';\n";
    expect(await restricted('src/http/planted.ts', blanket)).toHaveLength(1);
  });

  // Lints every source file: its time grows with the code base, so it gets more than the default 5 s.
  it('agrees with the layering test on every real import', { timeout: 60_000 }, async () => {
    const refused: string[] = [];
    for (const [path, text] of sources) {
      if (path.startsWith('generated/')) continue;
      for (const message of await restricted(path, text)) refused.push(`${path}: ${message}`);
    }
    expect(refused).toEqual([]);
  });
});
