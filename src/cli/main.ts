import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { runGenerate } from '../../codegen/main.js';
import { ConfigError } from '../config.js';
import { addClientCommands } from './client-commands.js';
import { addConformCommand } from './conform.js';
import { addServeCommand } from './serve.js';
import { addWebhookCommand } from './webhook-command.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Builds the command tree; each subcommand sets the exit code through `setExitCode`. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('a2a-hub')
    .description('A2A 1.0.1 toolkit: spec-first codegen, a hub server and a conformance suite.')
    .version(packageVersion(), '-v, --version')
    .exitOverride()
    .showHelpAfterError();

  program
    .command('generate')
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
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
}
