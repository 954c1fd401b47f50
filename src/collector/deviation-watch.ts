/**
 * Compares, while the collector runs, the sources that quote the same coin in the same currency
 * (docs/sources.md#checking-sources), as `nerkh sources check` does once: a source that starts
 * quoting in the wrong unit, or drifts away from the others, is logged when it starts and when it
 * is back in line, and counted, instead of going unnoticed behind a failover route.
 *
 * Per tick it is one map lookup and, only for a coin two or more sources quote, a comparison of
 * their latest fresh asks (`domain/source-deviation.ts`): the stream of a single source costs a lookup.
 */
import { compareAsks, type SourceAsk, type UnitHint } from '../domain/source-deviation.ts';
import type { QuoteCurrency, SourceName } from '../feeds/types.ts';
import type { Logger } from '../logger.ts';

/** A deviating source is back in line once within this share of the allowed deviation. */
const BACK_IN_LINE = 0.8;

interface Latest {
  ask: number;
  at: number;
}

/** One source's distance from the others on one coin, as the metrics show it. */
export interface SourceDeviation {
  symbol: string;
  currency: QuoteCurrency;
  source: SourceName;
  /** ask ÷ reference − 1: 0 in line, −0.9 a tenth of the others. */
  ratio: number;
  deviating: boolean;
}

interface DeviationWatchOptions {
  /** Beyond this, in percent, a source is deviating. */
  maxDeviationPct: number;
  /** An ask older than this is no longer compared. */
  staleMs: number;
  logger: Logger;
}

export class DeviationWatch {
  readonly #options: DeviationWatchOptions;
  /** `BTC toman` → each source's latest accepted ask. */
  readonly #latest = new Map<string, Map<SourceName, Latest>>();
  /** `BTC toman` → each source's current deviation, for the coins two or more sources quote. */
  readonly #current = new Map<string, Map<SourceName, SourceDeviation>>();
  readonly #deviatingQuotes = new Map<SourceName, number>();

  constructor(options: DeviationWatchOptions) {
    this.#options = options;
  }

  /** An accepted quote: compared with the other sources' fresh asks for the same coin and currency. */
  observe(source: SourceName, symbol: string, currency: QuoteCurrency, ask: number, now: number): void {
    const key = `${symbol} ${currency}`;
    let bySource = this.#latest.get(key);
    if (bySource === undefined) {
      bySource = new Map();
      this.#latest.set(key, bySource);
    }
    bySource.set(source, { ask, at: now });
    if (bySource.size < 2) return;

    const fresh: SourceAsk[] = [];
    for (const [name, latest] of bySource) {
      if (now - latest.at <= this.#options.staleMs) fresh.push({ source: name, ask: latest.ask });
    }
    const comparison = compareAsks(fresh, this.#options.maxDeviationPct);
    const previous = this.#current.get(key) ?? new Map<SourceName, SourceDeviation>();
    const current = new Map<SourceName, SourceDeviation>();
    for (const entry of comparison?.sources ?? []) {
      const was = previous.get(entry.source)?.deviating ?? false;
      // A deviating source is back in line only well within the limit, so one hovering at the
      // limit does not log a line each way on every tick.
      const deviating = was
        ? Math.abs(entry.deviationPct) > this.#options.maxDeviationPct * BACK_IN_LINE
        : entry.deviating;
      const deviation: SourceDeviation = {
        symbol,
        currency,
        source: entry.source,
        ratio: entry.ask / entry.reference - 1,
        deviating,
      };
      current.set(entry.source, deviation);
      if (deviation.deviating && !was) this.#started(deviation, entry.ask, entry.reference, entry.unitHint);
      if (!deviation.deviating && was) this.#ended(deviation);
    }
    // A deviating source no longer compared (its ask went stale, or no other source's is fresh)
    // is not in line either: it is said so, so the warning does not stand unanswered.
    for (const [name, deviation] of previous) {
      if (!deviation.deviating || current.has(name)) continue;
      const stale = !fresh.some((entry) => entry.source === name);
      this.#ended({ ...deviation, deviating: false }, stale ? 'stale' : 'alone');
    }
    if (current.size === 0) this.#current.delete(key);
    else this.#current.set(key, current);
    if (current.get(source)?.deviating) {
      this.#deviatingQuotes.set(source, (this.#deviatingQuotes.get(source) ?? 0) + 1);
    }
  }

  #started(deviation: SourceDeviation, ask: number, reference: number, unitHint: UnitHint | null): void {
    const { source, symbol, currency, ratio } = deviation;
    this.#options.logger.warn(
      {
        source,
        symbol,
        currency,
        ask,
        reference,
        deviation_pct: Number((ratio * 100).toFixed(2)),
        max_deviation_pct: this.#options.maxDeviationPct,
        ...(unitHint === null ? {} : { unit_hint: unitHint }),
      },
      'source deviates from the other sources',
    );
  }

  #ended(deviation: SourceDeviation, why: 'in line' | 'stale' | 'alone' = 'in line'): void {
    const { source, symbol, currency } = deviation;
    const messages = {
      'in line': 'source back in line with the other sources',
      stale: 'source no longer compared: its last ask is stale',
      alone: 'source no longer compared: no other source has a fresh ask',
    } as const;
    this.#options.logger.info({ source, symbol, currency }, messages[why]);
  }

  /** Every source's current distance from the others, for the coins two or more sources quote. */
  deviations(): SourceDeviation[] {
    return [...this.#current.values()].flatMap((bySource) => [...bySource.values()]);
  }

  /** Accepted quotes of each source that deviated from the others when they came. */
  deviatingQuotes(): Record<SourceName, number> {
    return Object.fromEntries(this.#deviatingQuotes);
  }
}
