import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, found from this file so the generator works from any working directory. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_SPEC_DIR = join(REPO_ROOT, 'spec');
export const DEFAULT_OUT_DIR = join(REPO_ROOT, 'generated');

/** POSIX-style path, so generated text is identical on every OS. */
export function toPosix(path: string): string {
  return path.split('\\').join('/');
}
