import { describe, expect, it } from 'vitest';
import { DeviationWatch } from '../../src/collector/deviation-watch.ts';
import { createLogger } from '../../src/logger.ts';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

function watch() {
  const lines: LogLine[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return { lines, watch: new DeviationWatch({ maxDeviationPct: 5, staleMs: 60_000, logger }) };
}

describe('DeviationWatch', () => {
  it('compares nothing while one source quotes a coin', () => {
    const { lines, watch: w } = watch();
    w.observe('binance', 'BTC', 'usdt', 64_000, 0);
    w.observe('binance', 'BTC', 'usdt', 64_100, 1000);
    expect(w.deviations()).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('logs once when a source starts quoting toman as rial, counts each such quote, and logs its return', () => {
    const { lines, watch: w } = watch();
    w.observe('nobitex', 'BTC', 'toman', 10_240_000_000, 0);
    w.observe('wallex', 'BTC', 'toman', 10_241_000_000, 0);
    w.observe('bitpin', 'BTC', 'toman', 10_239_000_000, 0);
    expect(lines).toEqual([]);
    // Bitpin now read as rial: a tenth of the others.
    w.observe('bitpin', 'BTC', 'toman', 1_023_900_000, 1000);
    w.observe('bitpin', 'BTC', 'toman', 1_024_000_000, 2000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'source deviates from the other sources',
      source: 'bitpin',
      symbol: 'BTC',
      currency: 'toman',
      reference: 10_240_000_000,
      deviation_pct: -90,
      max_deviation_pct: 5,
      unit_hint: 'ten-times-low',
    });
    expect(w.deviatingQuotes()).toEqual({ bitpin: 2 });
    expect(w.deviations().find((d) => d.source === 'bitpin')).toMatchObject({ deviating: true });
    expect(w.deviations().find((d) => d.source === 'nobitex')).toMatchObject({ deviating: false });
    w.observe('bitpin', 'BTC', 'toman', 10_242_000_000, 3000);
    expect(lines.slice(1)).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'source back in line with the other sources',
        source: 'bitpin',
      }),
    ]);
    expect(w.deviatingQuotes()).toEqual({ bitpin: 2 });
  });

  it('does not flap around the limit: back in line only within 80 % of it', () => {
    const { lines, watch: w } = watch();
    w.observe('nobitex', 'XRP', 'usdt', 2.0, 0);
    w.observe('wallex', 'XRP', 'usdt', 2.0, 0);
    w.observe('binance', 'XRP', 'usdt', 2.11, 0); // +5.5 %: deviating
    w.observe('binance', 'XRP', 'usdt', 2.09, 1000); // +4.5 %: within 5 %, not within 4 %
    w.observe('binance', 'XRP', 'usdt', 2.11, 2000);
    w.observe('binance', 'XRP', 'usdt', 2.06, 3000); // +3 %: back in line
    expect(lines.map((line) => [line.msg, line.source])).toEqual([
      ['source deviates from the other sources', 'binance'],
      ['source back in line with the other sources', 'binance'],
    ]);
    expect(w.deviatingQuotes()).toEqual({ binance: 3 });
  });

  it('leaves a stale ask out of the comparison', () => {
    const { lines, watch: w } = watch();
    w.observe('nobitex', 'USDT', 'toman', 105_299, 0);
    w.observe('wallex', 'USDT', 'toman', 10_530, 1000);
    expect(lines.map((line) => line.source)).toEqual(['nobitex', 'wallex']);
    // A minute and more later Nobitex alone quotes: Wallex's old ask is no longer compared.
    w.observe('nobitex', 'USDT', 'toman', 105_300, 70_000);
    expect(w.deviations()).toEqual([]);
    expect(lines.slice(2).map((line) => [line.msg, line.source])).toEqual([
      ['source no longer compared: no other source has a fresh ask', 'nobitex'],
      ['source no longer compared: its last ask is stale', 'wallex'],
    ]);
  });
});
