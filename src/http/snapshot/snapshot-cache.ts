import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliCompressSync,
  gzipSync,
  constants as zlibConstants,
  gzip as zlibGzip,
} from 'node:zlib';
import type { RateRow, Snapshot } from '../../domain/rates.ts';
import { flatString } from '../../flat-string.ts';
import type { Logger } from '../../logger.ts';
import type { SnapshotStore } from '../../store/types.ts';
import type { ContentCoding } from '../rates/content-coding.ts';
import { renderFields } from '../rates/prepared-head.ts';

const gzip = promisify(zlibGzip);
const brotli = promisify(brotliCompress);

/**
 * One representation of a response body (RFC 9110 §3.2): its bytes, its strong ETag (§8.8.3),
 * and the header fields that describe it, worked out once so a request only adds its own.
 * Fields are flat (name, value, …), as node:http's `writeHead` takes them, and rendered as the
 * lines of a response head (../rates/prepared-head.ts), as the rates fast path sends them.
 */
interface Representation {
  readonly body: Buffer;
  readonly etag: string;
  /** Fields of a 200 carrying this body. */
  readonly fields: readonly string[];
  readonly fieldLines: string;
  /**
   * Fields of a 304 for it: the ETag and Vary a 200 would carry (RFC 9110 §15.4.5; the route adds
   * Cache-Control). Not Last-Modified, which §15.4.5 leaves out when there is an ETag, nor
   * Content-Length or Content-Type, which would describe a body the 304 does not have.
   */
  readonly notModifiedFields: readonly string[];
  readonly notModifiedLines: string;
}

/** One response body in every coding it is served in. */
export type EncodedBody = Readonly<Record<ContentCoding, Representation>>;

interface RatesLabels {
  /** `source` of every response (NERKH_SOURCE_LABEL); absent, each snapshot's own label. */
  source?: string;
  disclaimer: string;
  refreshSeconds: number;
}

function ratesJson(snapshot: Snapshot, labels: RatesLabels, rates: readonly RateRow[]): Buffer {
  // Field order of docs/architecture.md#the-rates-response; rows are already in the row shape.
  return Buffer.from(
    JSON.stringify({
      source: labels.source ?? snapshot.source,
      side: 'sell',
      usdt_irt: snapshot.usdt_irt,
      updated_at: snapshot.updated_at,
      disclaimer: labels.disclaimer,
      count: rates.length,
      rates,
    }),
  );
}

// Highest settings: each body is compressed once per snapshot and sent many times.
const gzipOptions = { level: 9 };
const bestBrotli = zlibConstants.BROTLI_MAX_QUALITY;
/**
 * Brotli's quality for the full list of the first snapshot an instance serves, which it cannot
 * answer before: quality 11 took 74 ms for 200 coins on a slow core (the start's critical path,
 * the compression sharing the instance's one core), quality 5 took 2 ms for a body 22 % larger.
 * The view re-encodes it at the best quality right after it is served (`SnapshotView.prepare`).
 */
export const quickBrotli = 5;
const brotliOptions = (json: Buffer, quality: number) => ({
  params: {
    [zlibConstants.BROTLI_PARAM_QUALITY]: quality,
    [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
    [zlibConstants.BROTLI_PARAM_SIZE_HINT]: json.length,
  },
});

/** The validators a representation is known by: `tag` names the snapshot and body. */
interface Validators {
  tag: string;
  /** `updated_at` as an HTTP-date (RFC 9110 §5.6.7). */
  lastModified: string;
}

/**
 * zlib hands back a small result as a view into its whole output chunk (8 or 16 KiB): kept as it
 * is, each 400-byte body of a single symbol would hold 16 KiB, megabytes over every symbol.
 */
function exactBytes(bytes: Buffer): Buffer {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(bytes);
}

function representation(
  body: Buffer,
  coding: ContentCoding,
  etag: string,
  lastModified: string,
): Representation {
  // Each coding is a different representation of one resource, chosen by Accept-Encoding (§12.5.5).
  const notModifiedFields = ['vary', 'Accept-Encoding', 'etag', etag];
  const encoding = coding === 'identity' ? [] : ['content-encoding', coding];
  const fields = [
    ...notModifiedFields,
    'last-modified',
    lastModified,
    'content-type',
    'application/json',
    ...encoding,
    'content-length',
    String(body.length),
  ];
  return {
    body: exactBytes(body),
    etag,
    fields,
    fieldLines: renderFields(fields),
    notModifiedFields,
    notModifiedLines: renderFields(notModifiedFields),
  };
}

/** The br representation at `quality`: other bytes at each quality, so an ETag of its own. */
function brotliRepresentation(brotlied: Buffer, quality: number, { tag, lastModified }: Validators) {
  return representation(brotlied, 'br', `"${tag}-br${quality === bestBrotli ? '' : quality}"`, lastModified);
}

function encoded(
  json: Buffer,
  gzipped: Buffer,
  brotlied: Buffer,
  brotliQuality: number,
  validators: Validators,
): EncodedBody {
  const { tag, lastModified } = validators;
  return {
    identity: representation(json, 'identity', `"${tag}"`, lastModified),
    gzip: representation(gzipped, 'gzip', `"${tag}-gzip"`, lastModified),
    br: brotliRepresentation(brotlied, brotliQuality, validators),
  };
}

/** Compresses on the libuv thread pool, so the event loop keeps answering meanwhile. */
async function encodeAsync(
  json: Buffer,
  validators: Validators,
  brotliQuality = bestBrotli,
): Promise<EncodedBody> {
  const [gzipped, brotlied] = await Promise.all([
    gzip(json, gzipOptions),
    brotli(json, brotliOptions(json, brotliQuality)),
  ]);
  return encoded(json, gzipped, brotlied, brotliQuality, validators);
}

function encodeNow(json: Buffer, validators: Validators): EncodedBody {
  return encoded(
    json,
    gzipSync(json, gzipOptions),
    brotliCompressSync(json, brotliOptions(json, bestBrotli)),
    bestBrotli,
    validators,
  );
}

/**
 * What the rates endpoint serves from one committed snapshot: every body (the full list and each
 * symbol) serialized and compressed in every coding once, so requests never serialize or compress
 * anything. The full list is ready before the view is served; the single-symbol bodies are
 * prepared right after in the background (`prepare`), and one asked for before its turn is made
 * on the spot. A view built with a quick brotli quality (`quickBrotli`) also re-encodes the full
 * list's br at the best quality there, first.
 */
export class SnapshotView {
  readonly snapshot: Snapshot;
  readonly updatedAtMs: number;
  /** `updated_at` as an HTTP-date (RFC 9110 §5.6.7), for Last-Modified. */
  readonly lastModified: string;
  /** When the collector is due to commit the next snapshot (epoch ms). */
  readonly nextRefreshMs: number;
  /** The full list; its br representation is replaced once when the view was built quickly. */
  #all: EncodedBody;
  #allBrotliQuality: number;
  /** Listed symbols, upper case → row. */
  readonly rowsBySymbol: ReadonlyMap<string, RateRow>;
  readonly #labels: RatesLabels;
  readonly #validators: Validators;
  readonly #bySymbol = new Map<string, EncodedBody>();
  #maxAge = -1;
  #cacheControl = '';
  #superseded = false;

  private constructor(
    snapshot: Snapshot,
    labels: RatesLabels,
    validators: Validators,
    all: EncodedBody,
    allBrotliQuality: number,
  ) {
    this.snapshot = snapshot;
    this.#labels = labels;
    this.#validators = validators;
    this.#all = all;
    this.#allBrotliQuality = allBrotliQuality;
    this.updatedAtMs = Date.parse(snapshot.updated_at);
    this.lastModified = validators.lastModified;
    this.nextRefreshMs = this.updatedAtMs + labels.refreshSeconds * 1000;
    this.rowsBySymbol = new Map(snapshot.rates.map((row) => [row.symbol.toUpperCase(), row]));
  }

  /**
   * Builds the view with the full list encoded (off the event loop), its br at `brotliQuality`
   * (the best unless asked for `quickBrotli`).
   */
  static async build(
    snapshot: Snapshot,
    labels: RatesLabels,
    brotliQuality = bestBrotli,
  ): Promise<SnapshotView> {
    // The id alone could repeat after a data directory is replaced; the commit time makes reuse harmless.
    const updatedAtMs = Date.parse(snapshot.updated_at);
    const validators = {
      tag: `${snapshot.id}-${updatedAtMs.toString(36)}`,
      lastModified: new Date(updatedAtMs).toUTCString(),
    };
    const all = await encodeAsync(ratesJson(snapshot, labels, snapshot.rates), validators, brotliQuality);
    return new SnapshotView(snapshot, labels, validators, all, brotliQuality);
  }

  /** The full list in every coding. */
  get all(): EncodedBody {
    return this.#all;
  }

  /** Body for one listed symbol (upper case), or null when the symbol is not listed. */
  forSymbol(symbol: string): EncodedBody | null {
    const ready = this.#bySymbol.get(symbol);
    if (ready !== undefined) return ready;
    const row = this.rowsBySymbol.get(symbol);
    if (row === undefined) return null;
    const made = encodeNow(this.#symbolJson(row), this.#symbolValidators(symbol));
    this.#bySymbol.set(symbol, made);
    return made;
  }

  /**
   * Off the event loop, one body at a time, until done or superseded: re-encodes the full list's
   * br at the best quality when the view was built with a quick one, then encodes every symbol's
   * body.
   */
  async prepare(): Promise<void> {
    if (this.#allBrotliQuality !== bestBrotli && !this.#superseded) {
      const json = this.#all.identity.body;
      const brotlied = await brotli(json, brotliOptions(json, bestBrotli));
      this.#all = { ...this.#all, br: brotliRepresentation(brotlied, bestBrotli, this.#validators) };
      this.#allBrotliQuality = bestBrotli;
    }
    for (const [symbol, row] of this.rowsBySymbol) {
      if (this.#superseded) return;
      if (this.#bySymbol.has(symbol)) continue;
      const made = await encodeAsync(this.#symbolJson(row), this.#symbolValidators(symbol));
      // A request may have made it meanwhile; keep the first, so its ETag never changes.
      if (!this.#bySymbol.has(symbol)) this.#bySymbol.set(symbol, made);
    }
  }

  /** Stops background preparation: a newer snapshot is being served. */
  supersede(): void {
    this.#superseded = true;
  }

  /** `Cache-Control` at `nowMs`: private, until the next refresh; one string per second, not per request. */
  cacheControl(nowMs: number): string {
    const maxAge = Math.max(0, Math.ceil((this.nextRefreshMs - nowMs) / 1000));
    if (maxAge !== this.#maxAge) {
      this.#maxAge = maxAge;
      this.#cacheControl = flatString('private, max-age=', String(maxAge));
    }
    return this.#cacheControl;
  }

  #symbolJson(row: RateRow): Buffer {
    return ratesJson(this.snapshot, this.#labels, [row]);
  }

  #symbolValidators(symbol: string): Validators {
    return { tag: `${this.#validators.tag}-${symbol}`, lastModified: this.lastModified };
  }
}

interface SnapshotCacheOptions {
  store: SnapshotStore;
  labels: RatesLabels;
  logger: Logger;
  /** How often the store's latest snapshot id is polled. */
  pollMs?: number;
}

/**
 * Holds the view of the latest committed snapshot. It polls `latestSnapshotId()` (one indexed
 * read), so an API-only process sees commits made by a collector in another process within a
 * poll period, and it rebuilds the view only when the id changes.
 */
export class SnapshotCache {
  readonly #store: SnapshotStore;
  readonly #labels: RatesLabels;
  readonly #logger: Logger;
  readonly #pollMs: number;
  #view: SnapshotView | null = null;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | null = null;
  #closed = false;

  constructor(options: SnapshotCacheOptions) {
    this.#store = options.store;
    this.#labels = options.labels;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? 1000;
  }

  async start(): Promise<void> {
    await this.refresh();
    // Closed while the first snapshot loaded (a start that failed elsewhere): nothing to poll for.
    if (this.#closed) return;
    this.#timer = setInterval(() => void this.refresh(), this.#pollMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#view?.supersede();
  }

  /** The latest snapshot's view, or null before the first commit. */
  current(): SnapshotView | null {
    return this.#view;
  }

  /** Polls once; concurrent calls share one poll. A failing store keeps the last good view. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#poll().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #poll(): Promise<void> {
    try {
      const id = await this.#store.latestSnapshotId();
      if (id === 0 || id === this.#view?.snapshot.id) return;
      const snapshot = await this.#store.latestSnapshot();
      if (snapshot === null || this.#closed) return;
      // With nothing served yet (the instance's start), every request waits for this view: its
      // br is made quickly, and at the best quality once it is served.
      const view = await SnapshotView.build(
        snapshot,
        this.#labels,
        this.#view === null ? quickBrotli : undefined,
      );
      if (this.#closed) return;
      this.#view?.supersede();
      this.#view = view;
      void view.prepare().catch((error: unknown) => {
        this.#logger.error(
          { err: error },
          'preparing bodies in the background failed; single symbols are made on request',
        );
      });
      this.#logger.debug({ snapshot_id: snapshot.id, count: snapshot.rates.length }, 'serving new snapshot');
    } catch (error) {
      this.#logger.error({ err: error }, 'polling the snapshot store failed; serving the last snapshot');
    }
  }
}
