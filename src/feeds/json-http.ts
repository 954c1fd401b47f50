/**
 * `json-http` source adapter: polls any JSON document (`GET {url}`) and reads the quotes through
 * the operator's declarative mapping (`json-http-mapping.ts`). This is how an exchange publishes
 * its own panel's prices through nerkh without an adapter of its own.
 */
import type { Logger } from '../logger.ts';
import { HttpPoller } from './http-poll.ts';
import { type JsonHttpMapping, mappingProblems, parseJsonHttp } from './json-http-mapping.ts';
import type { Feed, FeedListener, MarketRequest } from './types.ts';

export interface JsonHttpFeedOptions {
  /** The configured source name, e.g. 'my-panel'. */
  name: string;
  /** The document's full URL, e.g. 'https://panel.example/api/prices'. */
  url: string;
  /** What to quote: `market` is the symbol as the document names it ('BTC'), matched case-insensitively. */
  markets: readonly MarketRequest[];
  /** Where the quotes are in the document. */
  mapping: JsonHttpMapping;
  listener: FeedListener;
  logger: Logger;
  /** Poll interval; raised to `minPollMs` when lower. */
  pollMs: number;
  /** Per request, default 5 000. */
  timeoutMs?: number;
  /** Floor of `pollMs`. Default 1 000. */
  minPollMs?: number;
  /** Ceiling of the backoff after failures. Default 60 000. */
  backoffMaxMs?: number;
  /** Request headers already resolved from the environment, e.g. `{ authorization: … }`. */
  headers?: Readonly<Record<string, string>>;
}

export class JsonHttpFeed implements Feed {
  readonly source: string;
  readonly #poller: HttpPoller;

  constructor(options: JsonHttpFeedOptions) {
    if (options.markets.length === 0) throw new Error(`${options.name}: needs at least one market`);
    const problems = mappingProblems(options.mapping);
    if (problems.length > 0) {
      throw new Error(
        `${options.name}: mapping ${problems.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ')}`,
      );
    }
    const { mapping } = options;
    const markets = [...options.markets];
    this.source = options.name;
    this.#poller = new HttpPoller({
      source: options.name,
      requests: [
        { url: options.url, parse: (text, receivedAt) => parseJsonHttp(text, mapping, markets, receivedAt) },
      ],
      pollMs: options.pollMs,
      minPollMs: options.minPollMs ?? 1_000,
      timeoutMs: options.timeoutMs ?? 5_000,
      backoffMaxMs: options.backoffMaxMs ?? 60_000,
      headers: options.headers,
      listener: options.listener,
      logger: options.logger,
    });
  }

  start(): void {
    this.#poller.start();
  }

  stop(): Promise<void> {
    return this.#poller.stop();
  }
}
