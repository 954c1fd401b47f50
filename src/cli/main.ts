import { Command } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { registerBackup } from './backup.ts';
import { registerCollect } from './collect.ts';
import { registerDemo } from './demo.ts';
import { registerKeys } from './keys.ts';
import { registerMigrate } from './migrate.ts';
import { unsupportedNodeReason } from './node-runtime.ts';
import { registerPrices } from './prices.ts';
import { registerRequests } from './requests.ts';
import { registerRestore } from './restore.ts';
import { registerServe } from './serve.ts';
import { registerSimulateExchange } from './simulate-exchange.ts';
import { registerSources } from './sources.ts';

/**
 * `nerkh` command line (docs/operations.md#command-line). Each command lives in its own module and registers itself
 * here; every command prints a one-line reason and exits non-zero on failure.
 */
const program = new Command('nerkh')
  .description('nerkh: an exchange sell-rate service (USDT and toman) for programs and AI agents')
  // The release `/v1/health` reports as `releaseId`.
  .version(
    packageJson.version,
    '-V, --version',
    'print the version of nerkh (the releaseId /v1/health reports)',
  )
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });

registerServe(program);
registerDemo(program);
registerKeys(program);
registerRequests(program);
registerSimulateExchange(program);
registerCollect(program);
registerSources(program);
registerPrices(program);
registerMigrate(program);
registerBackup(program);
registerRestore(program);

const unsupported = unsupportedNodeReason(process.versions.node);
try {
  if (unsupported !== undefined) throw new Error(unsupported);
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`nerkh: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
