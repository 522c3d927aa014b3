import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../codegen/paths.js';
import { skipNotice } from './skip-notice.js';

export { REPO_ROOT };

/** `../shared` beside the repository: reference material CI has, a fresh clone elsewhere may not. */
export const SHARED_DIR = join(REPO_ROOT, '..', 'shared');
export const PROTO_1_0 = join(SHARED_DIR, 'reference', 'a2a-1.0', 'a2a.proto');
/** The A2A 0.3.0 proto (package a2a.v1), which spec/a2a/0.3/rest is held to. */
export const PROTO_0_3 = join(SHARED_DIR, 'reference', 'a2a-0.3', 'a2a.proto');
/** The official A2A 0.3.0 JSON Schema, which spec/a2a/0.3 is held to. */
export const SCHEMA_0_3 = join(SHARED_DIR, 'reference', 'a2a-0.3', 'a2a.json');
export const SEED_001 = join(SHARED_DIR, 'seeds', '001_960fe3608a32b124.txt');
export const SEED_004 = join(SHARED_DIR, 'seeds', '004_f9614e4e86e06f07.txt');

/**
 * True when the file exists; otherwise says plainly which tests are skipped and why. Where
 * A2A_HUB_REQUIRE_SHARED=1 (CI sets it: CI always has ../shared), a missing file fails instead,
 * so the tests that hold spec/ to the proto and the seeds can never pass by being skipped.
 */
export function sharedFileAvailable(path: string, what: string): boolean {
  if (existsSync(path)) return true;
  if (process.env['A2A_HUB_REQUIRE_SHARED'] === '1')
    throw new Error(`${what} needs ${path}, and A2A_HUB_REQUIRE_SHARED=1 forbids skipping it`);
  skipNotice(`${what} (${path} is absent; ../shared is not beside this checkout)`);
  return false;
}
