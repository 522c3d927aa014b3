import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { CATALOG_SIZES, REQUIREMENTS } from '../../generated/conformance/requirements.js';
import { DEFAULTS } from '../../generated/hub/defaults.js';
import schema from '../../generated/hub/schema.json' with { type: 'json' };
import { TEST_DIRECTIVE_PARAMETERS, TEST_OUTCOMES } from '../../generated/hub/test-directives.js';
import { REPO_ROOT } from '../../codegen/paths.js';
import { REST_ROUTES } from '../../src/protocol/rest-routes.js';

/**
 * The documentation's tables against the registries they describe, so that a change to spec/
 * that the docs do not follow (or a docs edit that spec/ does not back) fails here.
 */
function doc(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

/** The rows of every Markdown table whose header row starts with `header`, as trimmed cells. */
function tableRows(text: string, header: RegExp): string[][] {
  const rows: string[][] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    if (!header.test(lines[index] ?? '')) continue;
    for (let row = index + 2; row < lines.length && (lines[row] ?? '').startsWith('|'); row += 1) {
      rows.push(
        (lines[row] ?? '')
          .slice(1, -1)
          .split(' | ')
          .map((cell) => cell.trim()),
      );
    }
  }
  return rows;
}

const plain = (cell: string): string => cell.replace(/\*\*|`/g, '').trim();

describe('docs/spec-policy.md: the error tables are the registry', () => {
  const rows = tableRows(doc('docs/spec-policy.md'), /^\| Error \| JSON-RPC \|/);

  it('lists every error of spec/a2a/1.0/errors.json exactly once', () => {
    const documented = rows.map((row) => row[0] ?? '');
    expect([...documented].sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it.each(rows.map((row) => [row[0] ?? '', row] as const))('%s: code, reason, HTTP and gRPC status as registered', (name, row) => {
    const registered = ERRORS[name as ErrorName];
    expect(registered, `${name} is not in the registry`).toBeDefined();
    expect({
      code: Number(plain(row[1] ?? '')),
      reason: plain(row[2] ?? ''),
      httpStatus: Number(plain(row[3] ?? '')),
      grpcStatus: plain(row[4] ?? ''),
    }).toEqual({
      code: registered.code,
      reason: registered.reason,
      httpStatus: registered.httpStatus,
      grpcStatus: registered.grpcStatus,
    });
  });
});

describe('docs/control-api.md: the status table is spec/control/api.json', () => {
  it('documents exactly the statuses the API declares', () => {
    const documented = tableRows(doc('docs/control-api.md'), /^\| Status \| When \|/).map((row) => Number(plain(row[0] ?? '')));
    expect(documented).toEqual(CONTROL_API.statusCodes.map((row) => row.status));
  });
});

describe('docs/server.md: the configuration table is spec/hub/config.schema.json', () => {
  const rows = new Map(
    tableRows(doc('docs/server.md'), /^\| member \| flag \/ variable \| default \|/).map((row) => [plain(row[0] ?? ''), row] as const),
  );
  const members = Object.keys(schema.$defs.HubConfig.properties);

  it('has one row per member of HubConfig', () => {
    expect([...rows.keys()].sort()).toEqual([...members].sort());
  });

  it.each(members)('%s: the default column is the schema default', (member) => {
    const cell = rows.get(member)?.[2] ?? '';
    const value: unknown = (DEFAULTS.HubConfig as Record<string, unknown>)[member];
    if (value === undefined) expect(cell).toBe('—');
    else expect(cell.startsWith(`\`${JSON.stringify(value).replace(/^"(.*)"$/, '$1')}\``), `${member}: ${cell}`).toBe(true);
  });
});

describe('docs/server.md: the HTTP+JSON routes table is methods.json', () => {
  it('lists every route without a tenant, with its verb and method, and each has its /{tenant} twin', () => {
    const rows = tableRows(doc('docs/server.md'), /^\| method \| verb \| route \| request from \|/).map((row) =>
      [row[0], plain(row[1] ?? ''), plain(row[2] ?? '')].join(' '),
    );
    const routes = REST_ROUTES.filter((route) => !route.tenant);
    expect(rows).toEqual(routes.map((route) => [route.method, route.verb, route.template].join(' ')));
    for (const route of routes) {
      expect(REST_ROUTES.some((twin) => twin.tenant && twin.verb === route.verb && twin.template === `/{tenant}${route.template}`)).toBe(
        true,
      );
    }
  });
});

describe('docs/test-directives.md: the directive table is spec/hub/test-directives.json', () => {
  const rows = tableRows(doc('docs/test-directives.md'), /^\| metadata member \| text line \|/);

  it.each(TEST_OUTCOMES.map((outcome) => [outcome.name, outcome] as const))(
    'outcome %s: its row names every text word',
    (name, outcome) => {
      const row = rows.find((cells) => (cells[0] ?? '').startsWith(`\`outcome: "${name}"\``));
      expect(row, `no row for outcome ${name}`).toBeDefined();
      expect((row?.[0] ?? '').includes('(default)')).toBe(outcome.default);
      expect([...(row?.[1] ?? '').matchAll(/`::([a-z-]+)`/g)].map((match) => match[1])).toEqual(outcome.textWords);
    },
  );

  it.each(Object.entries(TEST_DIRECTIVE_PARAMETERS))(
    'parameter %s: its row gives the range, the default and the text word',
    (name, parameter) => {
      const row = rows.find((cells) => (cells[0] ?? '').startsWith(`\`${name}: `));
      expect(row, `no row for ${name}`).toBeDefined();
      expect(row?.[0]).toContain(`(${parameter.minimum}–${parameter.maximum}, default ${parameter.default})`);
      if (parameter.textWord === undefined) expect(row?.[1]).toBe('—');
      else expect(row?.[1]).toBe(`\`::${parameter.textWord} N\` (N defaults to ${parameter.textDefault})`);
    },
  );
});

describe('counts the docs quote', () => {
  it("the catalog sizes: each number is the size of a version's catalog, and the current one is quoted", () => {
    const sizes = new Set(Object.values(CATALOG_SIZES));
    for (const path of ['README.md', 'docs/conformance.md']) {
      const quoted = [...doc(path).matchAll(/(\d+) (?:requirements|records)\b/g)].map((match) => Number(match[1]));
      expect(quoted, path).toContain(CATALOG_SIZES['1.0']);
      expect(
        quoted.filter((count) => !sizes.has(count)),
        path,
      ).toEqual([]);
    }
    expect(REQUIREMENTS.length).toBe([...Object.values(CATALOG_SIZES)].reduce((sum, count) => sum + count, 0));
  });
});

describe('README.md: the layout matches the tree', () => {
  const readme = doc('README.md');
  const layoutRow = (folder: string): string => readme.split('\n').find((line) => line.startsWith(`| \`${folder}/\` |`)) ?? '';

  it.each(['src', 'conformance'])('every folder of %s/ is described in its row, and the row names no folder that is gone', (root) => {
    const row = layoutRow(root);
    expect(row, `README has no layout row for ${root}/`).not.toBe('');
    const folders = readdirSync(join(REPO_ROOT, root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !row.includes(`\`${folder}/\``))).toEqual([]);
    const named = [...row.matchAll(/`([a-z][a-z-]*)\/`/g)].map((match) => match[1] ?? '').filter((name) => name !== root);
    // A row may also point at top-level folders of the repository (`spec/`, `generated/`).
    const existing = new Set([...folders, ...subfolders('.')]);
    expect(named.filter((name) => !existing.has(name))).toEqual([]);
  });

  it('the spec/ tree lists every file of spec/ outside meta/', () => {
    const tree = readme.slice(readme.indexOf('## How `spec/` is organised'), readme.indexOf("Each def's name"));
    const files = listFiles(join(REPO_ROOT, 'spec')).filter((path) => !path.startsWith('meta/') && path.endsWith('.json'));
    expect(files.filter((path) => !tree.includes(path.split('/').pop() ?? ''))).toEqual([]);
  });
});

function subfolders(relative: string): string[] {
  return readdirSync(join(REPO_ROOT, relative), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}
