/**
 * `json-http` source adapter: polls any JSON document (`GET {url}`) and reads the quotes through
 * the operator's declarative mapping (`json-http-mapping.ts`). This is how an exchange publishes
 * its own panel's prices through nerkh without an adapter of its own.
 */
import type { PollRequest } from './http-poll.ts';
import { type JsonHttpMapping, mappingProblems, parseJsonHttp } from './json-http-mapping.ts';
import { checkPolledFeedOptions, PolledFeed, type PolledFeedOptions } from './polled-feed.ts';

/**
 * `url` is the document's full URL; `markets[].market` is the symbol as the document names it
 * ('BTC'), matched case-insensitively. `minPollMs` defaults to 1 000.
 */
export interface JsonHttpFeedOptions extends PolledFeedOptions {
  /** Where the quotes are in the document. */
  mapping: JsonHttpMapping;
}

function jsonHttpRequests(options: JsonHttpFeedOptions): PollRequest[] {
  checkPolledFeedOptions(options);
  const problems = mappingProblems(options.mapping);
  if (problems.length > 0) {
    throw new Error(
      `${options.name}: mapping ${problems.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ')}`,
    );
  }
  const { mapping } = options;
  const markets = [...options.markets];
  return [
    { url: options.url, parse: (text, receivedAt) => parseJsonHttp(text, mapping, markets, receivedAt) },
  ];
}

export class JsonHttpFeed extends PolledFeed {
  constructor(options: JsonHttpFeedOptions) {
    super(options, jsonHttpRequests(options), 1_000);
  }
}
