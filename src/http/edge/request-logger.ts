import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * `request.log`: the pino child bound to the request id, made the first time something logs
 * through it. Fastify asks for one per request, but a request that goes well logs nothing through
 * it (its access-log line is written on its own), and making a pino child for every request was a
 * measurable share of a request's cost under load.
 */
class LazyRequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  get level(): string {
    return this.#logger.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  fatal(...args: LogArguments): void {
    this.#logger.fatal(...args);
  }

  error(...args: LogArguments): void {
    this.#logger.error(...args);
  }

  warn(...args: LogArguments): void {
    this.#logger.warn(...args);
  }

  info(...args: LogArguments): void {
    this.#logger.info(...args);
  }

  debug(...args: LogArguments): void {
    this.#logger.debug(...args);
  }

  trace(...args: LogArguments): void {
    this.#logger.trace(...args);
  }

  silent(...args: LogArguments): void {
    this.#logger.silent(...args);
  }

  isLevelEnabled(level: string): boolean {
    return this.#logger.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a request logger that costs nothing until it is used. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
