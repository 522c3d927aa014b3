import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOutputs } from '../../codegen/generate.js';
import { DEFAULT_SPEC_DIR } from '../../codegen/paths.js';

const scratch = mkdtempSync(join(tmpdir(), 'a2a-hub-conventions-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call --
   the edits reach into spec JSON by path; a typed model of every schema would add nothing here. */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A copy of spec/ with one file edited by `edit`. */
function specWith(file: string, edit: (json: Json) => void): string {
  const dir = mkdtempSync(join(scratch, 'spec-'));
  cpSync(DEFAULT_SPEC_DIR, dir, { recursive: true });
  const path = join(dir, file);
  const json = JSON.parse(readFileSync(path, 'utf8')) as Json;
  edit(json);
  writeFileSync(path, JSON.stringify(json, null, 2));
  return dir;
}

describe('the generator refuses a spec that breaks the conventions, naming file and place', () => {
  it('a def whose title differs from its name', async () => {
    const dir = specWith('a2a/1.0/task.schema.json', (json) => {
      json['$defs']['Task'].title = 'Job';
    });
    await expect(buildOutputs(dir)).rejects.toThrow('spec/a2a/1.0/task.schema.json#/$defs/Task: title must equal the def name "Task"');
  });

  it('a required member that is not declared', async () => {
    const dir = specWith('a2a/1.0/message.schema.json', (json) => {
      json['$defs']['Message'].required.push('messageID');
    });
    await expect(buildOutputs(dir)).rejects.toThrow(
      'spec/a2a/1.0/message.schema.json#/$defs/Message/required: "messageID" is not a declared property',
    );
  });

  it('a $ref with siblings other than description', async () => {
    const dir = specWith('a2a/1.0/task.schema.json', (json) => {
      json['$defs']['Task'].properties.status.minItems = 1;
    });
    await expect(buildOutputs(dir)).rejects.toThrow('a $ref may only have a sibling description, default and x-proto-name, found minItems');
  });

  it('a oneof branch that says more than which member it requires', async () => {
    const dir = specWith('a2a/1.0/message.schema.json', (json) => {
      json['$defs']['Part'].oneOf[0].properties = { text: { type: 'string' } };
    });
    await expect(buildOutputs(dir)).rejects.toThrow('Part/oneOf/0: a oneof branch must be exactly {"required": ["<member>"]}');
  });

  it('a method table that names an error the error table does not have', async () => {
    const dir = specWith('a2a/1.0/methods.json', (json) => {
      json['methods'][0].errors.push('TaskExplodedError');
    });
    await expect(buildOutputs(dir)).rejects.toThrow('spec/a2a/1.0/methods.json: unknown error: TaskExplodedError');
  });

  it('a table that breaks its meta-schema', async () => {
    const dir = specWith('a2a/1.0/task-states.json', (json) => {
      json['states'][0].class = 'sleeping';
    });
    await expect(buildOutputs(dir)).rejects.toThrow('spec/a2a/1.0/task-states.json does not match spec/meta/task-states.schema.json');
  });

  it('an unknown keyword (ajv strict mode)', async () => {
    const dir = specWith('a2a/1.0/task.schema.json', (json) => {
      json['$defs']['Task'].properties.id.maxLenght = 10;
    });
    await expect(buildOutputs(dir)).rejects.toThrow(/maxLenght/);
  });
});
