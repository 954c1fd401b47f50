import type { RateRow, Snapshot } from '../../domain/rates.ts';
import { flatString } from '../../flat-string.ts';
import {
  bestBrotli,
  bestBrotliRepresentation,
  type EncodedBody,
  encodeAsync,
  encodeNow,
  quickBrotli,
  type RatesLabels,
  ratesJson,
  type Validators,
} from './body-encoding.ts';

/** How many bodies of several symbols a view keeps (`forSymbols`): under 2 MB in all (20 rows are about 7 kB in three codings). */
const symbolSetsKept = 256;

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
  /** Bodies of several symbols, by their symbols in row order joined with `.`; the oldest made goes first. */
  readonly #bySymbols = new Map<string, EncodedBody>();
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
   * Body for several listed symbols (upper case, distinct; `symbols=`), their rows in the order of
   * the full list; or null when one is not listed. One symbol is that symbol's body. A set is
   * encoded the first time it is asked for, on the spot, br at a quick quality: lists are too many
   * to prepare, and one made on the event loop must be quick (quality 11 of a 20-row list would
   * hold the loop several times as long). The last `symbolSetsKept` sets are kept, so a client
   * asking again gets the same bytes and ETag, and its 304.
   */
  forSymbols(symbols: readonly string[]): EncodedBody | null {
    if (symbols.length === 1) return this.forSymbol(symbols[0] as string);
    const wanted = new Set(symbols);
    const rows = this.snapshot.rates.filter((row) => wanted.has(row.symbol.toUpperCase()));
    if (rows.length !== wanted.size) return null;
    const key = rows.map((row) => row.symbol.toUpperCase()).join('.');
    const ready = this.#bySymbols.get(key);
    if (ready !== undefined) return ready;
    const made = encodeNow(
      ratesJson(this.snapshot, this.#labels, rows),
      { tag: `${this.#validators.tag}-${key}`, lastModified: this.lastModified },
      quickBrotli,
    );
    if (this.#bySymbols.size >= symbolSetsKept) {
      this.#bySymbols.delete(this.#bySymbols.keys().next().value as string);
    }
    this.#bySymbols.set(key, made);
    return made;
  }

  /**
   * Off the event loop, one body at a time, until done or superseded: re-encodes the full list's
   * br at the best quality when the view was built with a quick one, then encodes every symbol's
   * body.
   */
  async prepare(): Promise<void> {
    if (this.#allBrotliQuality !== bestBrotli && !this.#superseded) {
      const br = await bestBrotliRepresentation(this.#all.identity.body, this.#validators);
      this.#all = { ...this.#all, br };
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
