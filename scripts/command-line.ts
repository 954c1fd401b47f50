/**
 * The command line of a repository script (`npm run bench`, `contract`, …; the drills have their
 * own, drills/support/drill-cli.ts), read the way a user expects of any command: `--help` prints
 * `usage` and exits 0; an unknown option, a missing value or a value the script refuses (`refuse`)
 * prints what is wrong and the usage and exits 2, never a stack trace.
 */
export class CommandLine {
  readonly #command: string;
  readonly #usage: string;

  constructor(command: string, usage: string) {
    this.#command = command;
    this.#usage = usage;
  }

  /**
   * The option values `read` parses (node:util's `parseArgs`, with a boolean `help` among its
   * options), `--help` and parse errors handled here.
   */
  parse<Values extends { help?: boolean | undefined }>(read: () => Values): Values {
    const values = this.read(read);
    if (values.help === true) {
      console.log(this.#usage);
      process.exit(0);
    }
    return values;
  }

  /** What `read` makes of the command line; when it throws, the command line is refused with its message. */
  read<Value>(read: () => Value): Value {
    try {
      return read();
    } catch (error) {
      this.refuse((error as Error).message);
    }
  }

  /** Says what is wrong with the command line, and how to run the script. */
  refuse(message: string): never {
    console.error(`${this.#command}: ${message}`);
    console.error(this.#usage);
    process.exit(2);
  }
}

/** Stops a script that cannot run on this machine (a missing tool) with the reason alone, not a stack. */
export function stopScript(command: string, message: string): never {
  console.error(`${command}: ${message}`);
  process.exit(1);
}
