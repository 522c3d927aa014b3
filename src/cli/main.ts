import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { packageVersion } from '../support/package-version.js';
import { addClientCommands } from './client-commands.js';
import { addConformCommand } from './conform.js';
import { addDbCommand } from './db-command.js';
import { addServeCommand } from './serve.js';
import { addWebhookCommand } from './webhook-command.js';

/**
 * codegen/ (spec/ compiled into generated/) is in a clone of the repository only: the npm package
 * ships generated/ compiled, without the compiler or its dependencies. There the command is left
 * out of --help and, when asked for, says where it runs. A computed specifier, so that the build
 * (tsconfig.build.json) does not compile codegen/ into the package.
 */
const CODEGEN = new URL('../../codegen/main.ts', import.meta.url);
const NO_CODEGEN =
  'a2a-hub generate compiles spec/ into generated/ and runs from a clone of the repository (npm run generate); ' +
  'the installed package ships generated/ already compiled.';

async function runGenerate(args: string[]): Promise<number> {
  if (!existsSync(CODEGEN)) {
    console.error(NO_CODEGEN);
    return 2;
  }
  const codegen = (await import(CODEGEN.href)) as { runGenerate(args: string[]): Promise<number> };
  return codegen.runGenerate(args);
}

/** Builds the command tree; each subcommand sets the exit code through `setExitCode`. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('a2a-hub')
    .description('A2A 1.0.1 toolkit: spec-first codegen, a hub server and a conformance suite.')
    .version(packageVersion(), '-v, --version')
    .exitOverride()
    .showHelpAfterError();

  program
    .command('generate', { hidden: !existsSync(CODEGEN) })
    .description('compile spec/ into generated/ (types, validators, registries)')
    .option('--check', 'compare generated/ with spec/ instead of writing; exit 1 when stale')
    .option('--spec-dir <dir>', 'the spec folder to compile')
    .option('--out-dir <dir>', 'the folder to write or check')
    .action(async (options: { check?: boolean; specDir?: string; outDir?: string }) => {
      const args = [
        ...(options.check ? ['--check'] : []),
        ...(options.specDir ? ['--spec-dir', options.specDir] : []),
        ...(options.outDir ? ['--out-dir', options.outDir] : []),
      ];
      setExitCode(await runGenerate(args));
    });

  addServeCommand(program, setExitCode);
  addConformCommand(program, setExitCode);
  addClientCommands(program, setExitCode);
  addWebhookCommand(program, setExitCode);
  addDbCommand(program, setExitCode);
  return program;
}

/** Runs the CLI with `argv` as Node passes it and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // Help and --version exit 0; every other commander error is a usage error: 2, never 1, which is a MUST failure's code for conform.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
}
