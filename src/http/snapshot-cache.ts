import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import type { RateRow, Snapshot } from '../domain/rates.ts';
import type { Logger } from '../logger.ts';
import type { SnapshotStore } from '../store/types.ts';
import type { ContentCoding } from './content-coding.ts';

/** One response body in every coding it is served in, each with its own strong ETag (RFC 9110 §8.8.3). */
export interface EncodedBody {
  bodies: Readonly<Record<ContentCoding, Buffer>>;
  etags: Readonly<Record<ContentCoding, string>>;
}

export interface RatesLabels {
  source: string;
  disclaimer: string;
  refreshSeconds: number;
}

/**
 * What the rates endpoint serves from one committed snapshot. The full list is serialized and
 * compressed once when the snapshot arrives; single-symbol bodies on first request, then kept
 * until the next snapshot. Requests therefore never serialize or compress anything.
 */
export class SnapshotView {
  readonly snapshot: Snapshot;
  readonly updatedAtMs: number;
  /** `updated_at` as an HTTP-date (RFC 9110 §5.6.7), for Last-Modified. */
  readonly lastModified: string;
  /** When the collector is due to commit the next snapshot (epoch ms). */
  readonly nextRefreshMs: number;
  readonly all: EncodedBody;
  /** Listed symbols, upper case → row. */
  readonly rowsBySymbol: ReadonlyMap<string, RateRow>;
  readonly #labels: RatesLabels;
  readonly #tagBase: string;
  readonly #bySymbol = new Map<string, EncodedBody>();

  constructor(snapshot: Snapshot, labels: RatesLabels) {
    this.snapshot = snapshot;
    this.#labels = labels;
    this.updatedAtMs = Date.parse(snapshot.updated_at);
    this.lastModified = new Date(this.updatedAtMs).toUTCString();
    this.nextRefreshMs = this.updatedAtMs + labels.refreshSeconds * 1000;
    this.rowsBySymbol = new Map(snapshot.rates.map((row) => [row.symbol.toUpperCase(), row]));
    // The id alone could repeat after a data directory is replaced; the commit time makes reuse harmless.
    this.#tagBase = `${snapshot.id}-${this.updatedAtMs.toString(36)}`;
    this.all = this.#encode(snapshot.rates, this.#tagBase);
  }

  /** Body for one listed symbol (upper case), or null when the symbol is not listed. */
  forSymbol(symbol: string): EncodedBody | null {
    const cached = this.#bySymbol.get(symbol);
    if (cached) return cached;
    const row = this.rowsBySymbol.get(symbol);
    if (!row) return null;
    const encoded = this.#encode([row], `${this.#tagBase}-${symbol}`);
    this.#bySymbol.set(symbol, encoded);
    return encoded;
  }

  #encode(rates: readonly RateRow[], tag: string): EncodedBody {
    // Field order of spec §2.1; rows are already in the §2.2 shape.
    const json = Buffer.from(
      JSON.stringify({
        source: this.#labels.source,
        side: 'sell',
        usdt_irt: this.snapshot.usdt_irt,
        updated_at: this.snapshot.updated_at,
        disclaimer: this.#labels.disclaimer,
        count: rates.length,
        rates,
      }),
    );
    return {
      bodies: {
        identity: json,
        gzip: gzipSync(json, { level: 9 }),
        br: brotliCompressSync(json, {
          params: {
            [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
            [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: json.length,
          },
        }),
      },
      etags: { identity: `"${tag}"`, gzip: `"${tag}-gzip"`, br: `"${tag}-br"` },
    };
  }
}

export interface SnapshotCacheOptions {
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

  constructor(options: SnapshotCacheOptions) {
    this.#store = options.store;
    this.#labels = options.labels;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? 1000;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#pollMs);
    this.#timer.unref();
  }

  close(): void {
    clearInterval(this.#timer);
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
      if (snapshot === null) return;
      this.#view = new SnapshotView(snapshot, this.#labels);
      this.#logger.debug({ snapshot_id: snapshot.id, count: snapshot.rates.length }, 'serving new snapshot');
    } catch (error) {
      this.#logger.error({ err: error }, 'polling the snapshot store failed; serving the last snapshot');
    }
  }
}
