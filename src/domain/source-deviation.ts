/**
 * How far apart the sources quoting the same coin are (docs/sources.md#checking-sources): a source
 * that deviates from the others by more than a set percentage is flagged, for `nerkh sources
 * check` and for the running collector alike. Pure: asks in, comparison out.
 *
 * Each source is compared with a reference: with three or more sources the median of all their
 * asks, so one wrong source stands out alone; with two, the other source's ask, since two that
 * disagree cannot say which of them is wrong. A source about 10× off is named as a likely unit
 * mistake: rial read as toman, or toman read as rial.
 */

export interface SourceAsk {
  source: string;
  /** In the coin's currency, after unit conversion (rial → toman). */
  ask: number;
}

/** A likely unit mistake: the ask is about 10× the reference, or about a tenth of it. */
export type UnitHint = 'ten-times-high' | 'ten-times-low';

export interface AskDeviation extends SourceAsk {
  reference: number;
  /** (ask ÷ reference − 1) × 100. */
  deviationPct: number;
  /** |deviationPct| is beyond the allowed percentage. */
  deviating: boolean;
  unitHint: UnitHint | null;
}

export interface AskComparison {
  /** (highest ask ÷ lowest ask − 1) × 100. */
  spreadPct: number;
  /** In the order given. */
  sources: AskDeviation[];
}

/** Within this fraction of 10 (or of a tenth), a ratio reads as a unit mistake. */
const UNIT_TOLERANCE = 0.15;

/** The middle value, or the mean of the two middle ones; `values` must not be empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function unitHintOf(ratio: number): UnitHint | null {
  if (Math.abs(ratio / 10 - 1) <= UNIT_TOLERANCE) return 'ten-times-high';
  if (Math.abs(ratio * 10 - 1) <= UNIT_TOLERANCE) return 'ten-times-low';
  return null;
}

/**
 * Compares the asks of one coin in one currency from two or more sources; null with fewer (there
 * is nothing to compare). Asks must be positive, as every accepted quote is.
 */
export function compareAsks(asks: readonly SourceAsk[], maxDeviationPct: number): AskComparison | null {
  if (asks.length < 2) return null;
  const values = asks.map(({ ask }) => ask);
  const all = median(values);
  const sources = asks.map(({ source, ask }, index): AskDeviation => {
    const reference = asks.length === 2 ? (values[1 - index] as number) : all;
    const ratio = ask / reference;
    const deviationPct = (ratio - 1) * 100;
    const deviating = Math.abs(deviationPct) > maxDeviationPct;
    return {
      source,
      ask,
      reference,
      deviationPct,
      deviating,
      unitHint: deviating ? unitHintOf(ratio) : null,
    };
  });
  return { spreadPct: (Math.max(...values) / Math.min(...values) - 1) * 100, sources };
}
