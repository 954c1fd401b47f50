import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Say, type Teardown, TeardownList } from './rig.ts';

export interface DrillOption {
  /** Default value; the parsed value has its type (number or string). */
  default: number | string;
  help: string;
}

interface DrillCommand<Options> {
  /** `drill:<name>` */
  name: string;
  /** What it does and what it proves, for --help. */
  description: string;
  options: { [K in keyof Options]: DrillOption };
  run(options: Options, say: Say, teardown: Teardown): Promise<{ ok: boolean }>;
}

/** True when the module is the script node was started with (not imported by a test). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}

/**
 * Runs a drill as `npm run drill:<name> -- [--option value]…`: help text, progress lines on
 * stdout, clean-up however it ends, exit 1 when a target was missed.
 */
export async function runDrillCommand<Options>(command: DrillCommand<Options>): Promise<void> {
  const entries = Object.entries(command.options) as Array<[string, DrillOption]>;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(entries.map(([name]) => [name, { type: 'string' as const }])),
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}; see --help\n`);
    process.exit(2);
  }
  if (parsed.values.help) {
    const lines = entries.map(
      ([name, option]) => `  --${name.padEnd(14)} ${option.help} (default ${option.default})`,
    );
    process.stdout.write(
      `npm run drill:${command.name} -- [options]\n\n${command.description}\n\n${lines.join('\n')}\n`,
    );
    return;
  }
  const options: Record<string, number | string> = {};
  for (const [name, option] of entries) {
    const given = parsed.values[name];
    if (typeof given !== 'string') {
      options[name] = option.default;
    } else if (typeof option.default === 'number') {
      const value = Number(given);
      if (!Number.isFinite(value) || value < 0) {
        process.stderr.write(`--${name} must be a non-negative number, not "${given}"\n`);
        process.exit(2);
      }
      options[name] = value;
    } else {
      options[name] = given;
    }
  }
  const teardown = new TeardownList();
  const say: Say = (line) => process.stdout.write(`${command.name}: ${line}\n`);
  let ok = false;
  try {
    ({ ok } = await command.run(options as Options, say, teardown.add));
  } catch (error) {
    say(`failed: ${(error as Error).stack ?? String(error)}`);
  } finally {
    await teardown.run();
  }
  say(ok ? 'PASS' : 'FAIL');
  process.exit(ok ? 0 : 1);
}
