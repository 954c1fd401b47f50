/**
 * `json-http` source adapter: polls any JSON document and reads the quotes through the operator's
 * declarative mapping (`json-http-mapping.ts`). This is how an exchange publishes its own panel's
 * prices through nerkh without an adapter of its own.
 *
 * A URL holding `{symbol}` names one document per market (an exchange whose ask is only in a
 * per-symbol order book): one request per market, spread evenly over the poll interval and never
 * closer together than the exchange's documented limit allows (docs/sources.md#the-json-http-mapping).
 */
import type { PollRequest } from './http-poll.ts';
import {
  isUrlTemplate,
  type JsonHttpMapping,
  mappingProblems,
  marketQuoteCode,
  marketUrl,
  parseJsonHttp,
  parseJsonHttpMarket,
} from './json-http-mapping.ts';
import { checkPolledFeedOptions, PolledFeed, type PolledFeedOptions } from './polled-feed.ts';

/**
 * `url` is the document's full URL, or a template holding `{symbol}` (and `{quote}`);
 * `markets[].market` is the symbol as the document names it ('BTC'), matched case-insensitively.
 * `minPollMs` defaults to the exchange's limit (`maxRequestsPerMinute`), else 1 000.
 */
export interface JsonHttpFeedOptions extends PolledFeedOptions {
  /** Where the quotes are in the document. */
  mapping: JsonHttpMapping;
  /** The exchange's documented request limit: requests are at least 60 000 / this ms apart. */
  maxRequestsPerMinute?: number;
}

function jsonHttpRequests(options: JsonHttpFeedOptions): PollRequest[] {
  checkPolledFeedOptions(options);
  const problems = mappingProblems(options.mapping, options.url);
  if (problems.length > 0) {
    throw new Error(
      `${options.name}: mapping ${problems.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ')}`,
    );
  }
  const { mapping, url } = options;
  const markets = [...options.markets];
  if (!isUrlTemplate(url)) {
    return [{ url, parse: (text, receivedAt) => parseJsonHttp(text, mapping, markets, receivedAt) }];
  }
  return markets.map((request) => {
    const quote = marketQuoteCode(mapping, request.currency);
    if (quote === null) {
      throw new Error(`${options.name}: the mapping declares no quote code for ${request.currency}`);
    }
    return {
      url: marketUrl(url, request.market, quote.code),
      parse: (text, receivedAt) => parseJsonHttpMarket(text, mapping, request, quote.unit, receivedAt),
    };
  });
}

export class JsonHttpFeed extends PolledFeed {
  constructor(options: JsonHttpFeedOptions) {
    const perRequestMs =
      options.maxRequestsPerMinute === undefined ? 1_000 : Math.ceil(60_000 / options.maxRequestsPerMinute);
    super(options, jsonHttpRequests(options), perRequestMs, { spread: isUrlTemplate(options.url) });
  }
}
