import { type Static, type TSchema, Type } from 'typebox';
import { JsonHttpMappingSchema } from '../feeds/json-http-mapping.ts';

/**
 * The shape of the sources file (docs/sources.md), one TypeBox schema per source kind. Field
 * names are snake_case like the environment's. `description` doubles as the error text: a value
 * that fails a pattern is reported as "must be <description>".
 */

export const sourceKinds = ['binance', 'nobitex', 'wallex', 'json-http'] as const;
export type SourceKind = (typeof sourceKinds)[number];

const SourceName = Type.String({
  pattern: '^[a-z][a-z0-9-]{0,31}$',
  description: 'a name of lower-case letters, digits and "-", starting with a letter (at most 32)',
});
const HttpUrl = Type.String({
  pattern: '^https?://[^\\s@/]+(/[^\\s]*)?$',
  description: 'an http:// or https:// URL without credentials in it',
});
const WsUrl = Type.String({
  pattern: '^wss?://[^\\s@/]+(/[^\\s]*)?$',
  description: 'a ws:// or wss:// URL without credentials in it',
});
const EnvName = Type.String({
  pattern: '^[A-Z_][A-Z0-9_]{0,63}$',
  description:
    'the NAME of an environment variable (upper case, digits, "_") that holds the secret, never the secret itself',
});
export const CoinSymbol = Type.String({
  pattern: '^[A-Z0-9]{1,20}$',
  description: 'a catalog symbol in upper case, e.g. BTC',
});
/** What the source calls a coin, when not its catalog symbol: `symbols: {BTC: XBT}`. */
const Symbols = Type.Record(
  Type.String(),
  Type.String({
    pattern: '^[A-Za-z0-9._-]{1,40}$',
    description: "the coin's name at the source: letters, digits, '.', '_' or '-'",
  }),
  { propertyNames: CoinSymbol },
);
/**
 * How many coins one quote of a market prices, when not one: `coins_per_quote: {SHIB: 1000}` for a
 * market per thousand SHIB. Asks are divided by it (docs/sources.md#the-unit-of-a-market).
 */
const CoinsPerQuote = Type.Record(
  Type.String(),
  Type.Number({
    exclusiveMinimum: 0,
    maximum: 1e12,
    description: 'how many coins one quote prices, e.g. 1000',
  }),
  { propertyNames: CoinSymbol },
);
const PollSeconds = (minimum: number) => Type.Number({ minimum, maximum: 3600 });

const common = {
  name: SourceName,
  symbols: Type.Optional(Symbols),
  coins_per_quote: Type.Optional(CoinsPerQuote),
};

const BinanceSource = Type.Object(
  {
    ...common,
    kind: Type.Literal('binance'),
    /** The stream's base, e.g. wss://stream.binance.com:9443. */
    url: WsUrl,
    /** REST base for a one-off bootstrap of every price at start, e.g. https://api.binance.com. */
    rest_url: Type.Optional(HttpUrl),
  },
  { additionalProperties: false },
);

const NobitexSource = Type.Object(
  {
    ...common,
    kind: Type.Literal('nobitex'),
    url: HttpUrl,
    // Nobitex allows 20 requests a minute on /market/stats (docs/sources.md, "Nobitex").
    poll_seconds: Type.Optional(PollSeconds(3)),
    /** `<name>` in `User-Agent: TraderBot/<name>`, the form Nobitex asks bots to send. */
    bot_name: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$",
        description: 'a bot name of letters, digits and "-", "_", "." (an HTTP token, at most 64)',
      }),
    ),
  },
  { additionalProperties: false },
);

const WallexSource = Type.Object(
  {
    ...common,
    kind: Type.Literal('wallex'),
    url: HttpUrl,
    // The adapter asks Wallex at most every 3 s, as it does Nobitex.
    poll_seconds: Type.Optional(PollSeconds(3)),
    /** Sent as `x-api-key`; the markets document needs none, a key raises the rate limit. */
    api_key_env: Type.Optional(EnvName),
    /**
     * How long one request may take, seconds (default 5): `/v1/markets` has been seen taking tens
     * of seconds from a cold start (docs/sources.md, "Wallex").
     */
    timeout_seconds: Type.Optional(Type.Number({ minimum: 1, maximum: 120 })),
  },
  { additionalProperties: false },
);

const JsonHttpSource = Type.Object(
  {
    ...common,
    kind: Type.Literal('json-http'),
    /** The document's URL, or one per market holding `{symbol}` (and `{quote}`). */
    url: HttpUrl,
    poll_seconds: Type.Optional(PollSeconds(1)),
    /** The exchange's documented request limit: requests are spread to stay within it. */
    max_requests_per_minute: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 6000 })),
    /** Request headers whose values are read from the named environment variables. */
    headers_env: Type.Optional(
      Type.Record(Type.String(), EnvName, {
        propertyNames: Type.String({
          pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$",
          description: 'an HTTP header name',
        }),
      }),
    ),
    mapping: JsonHttpMappingSchema,
  },
  { additionalProperties: false },
);

/** The schema of each kind, so an entry is checked against its own kind's fields only. */
export const sourceSchemas = {
  binance: BinanceSource,
  nobitex: NobitexSource,
  wallex: WallexSource,
  'json-http': JsonHttpSource,
} as const satisfies Record<SourceKind, TSchema>;

export type SourceEntry = Static<(typeof sourceSchemas)[SourceKind]>;
export type JsonHttpSourceEntry = Static<typeof JsonHttpSource>;

const RouteList = Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true });
const RouteLists = Type.Object(
  {
    /** Sources of the coin's price in tether, first = primary, then the fallbacks in order. */
    usdt: Type.Optional(RouteList),
    /** Sources of the coin's price in toman; empty = sell_irt derived as sell_usdt × usdt_irt. */
    toman: Type.Optional(RouteList),
  },
  { additionalProperties: false },
);

/**
 * The whole file, with each source entry left open: an entry is checked against the schema of its
 * `kind` (`sourceSchemas`), so a mistake is reported against the fields that kind has.
 */
export const SourcesFileSchema = Type.Object(
  {
    sources: Type.Array(Type.Object({ kind: Type.Enum([...sourceKinds]) }), { minItems: 1 }),
    routes: Type.Object(
      {
        default: RouteLists,
        coins: Type.Optional(Type.Record(Type.String(), RouteLists, { propertyNames: CoinSymbol })),
      },
      { additionalProperties: false },
    ),
    deviation: Type.Optional(
      Type.Object(
        {
          /** A source further than this from the others on a coin, in percent, is flagged. */
          max_pct: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
        },
        { additionalProperties: false },
      ),
    ),
    failover: Type.Optional(
      Type.Object(
        {
          /** A source with no accepted quote of a coin for this long no longer serves the coin. */
          stale_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 86_400 })),
          /** A coin returns to an earlier source once that one has been usable this long. */
          return_after_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 86_400 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type SourcesFile = Omit<Static<typeof SourcesFileSchema>, 'sources'> & { sources: SourceEntry[] };
export type RouteListsEntry = Static<typeof RouteLists>;
