import { readFileSync } from 'node:fs';

/**
 * The version of the package this module ships in, from the nearest package.json above it: the
 * repository's in a clone (this file is src/support/), the installed package's in node_modules
 * (where it is dist/src/support/).
 */
export function packageVersion(): string {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    try {
      return (JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { version: string }).version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (new URL('..', dir).href === dir.href) throw new Error(`no package.json above ${import.meta.url}`, { cause: error });
    }
  }
}
