/**
 * A bench's command line, read the way a user expects of any command: `--help` prints `usage` and
 * exits 0; an unknown option, a missing value or a value the bench refuses (`refuse`) prints what
 * is wrong and the usage and exits 2, never a stack trace.
 */
export class BenchCommandLine {
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

  /** Says what is wrong with the command line, and how to run the bench. */
  refuse(message: string): never {
    console.error(`${this.#command}: ${message}`);
    console.error(this.#usage);
    process.exit(2);
  }
}

/**
 * Stops a bench that cannot run on this machine (a missing tool) or whose run went wrong, with
 * the reason alone: the stack of a bench script tells its user nothing.
 */
export function stopBench(command: string, message: string): never {
  console.error(`${command}: ${message}`);
  process.exit(1);
}
