import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledCatalogPath, loadCatalog } from '../../src/catalog/catalog-file.ts';

describe('bundled catalog', () => {
  const catalog = loadCatalog();

  it('lists at least 100 coins, each priced by its own Binance USDT pair, plus tether', () => {
    const coins = catalog.filter((entry) => entry.pair !== null);
    expect(coins.length).toBeGreaterThanOrEqual(100);
    for (const entry of coins) expect(entry.pair).toBe(`${entry.symbol}USDT`);
    expect(catalog.find((entry) => entry.symbol === 'USDT')).toEqual({
      symbol: 'USDT',
      name_fa: 'تتر',
      name_en: 'Tether',
      pair: null,
    });
  });

  it('writes Persian names with Persian ی and ک (never Arabic ي ك) and ZWNJ where Iranians write it', () => {
    for (const entry of catalog) expect(entry.name_fa, entry.symbol).not.toMatch(/[\u064A\u0643\u0649]/);
    const names = new Map(catalog.map((entry) => [entry.symbol, entry.name_fa]));
    expect(names.get('BTC')).toBe('بیت\u200Cکوین');
    expect(names.get('DOGE')).toBe('دوج\u200Cکوین');
    expect(names.get('LINK')).toBe('چین\u200Cلینک');
    expect(names.get('ETH')).toBe('اتریوم');
  });

  it('is found from any working directory', () => {
    const cwd = process.cwd();
    try {
      process.chdir(tmpdir());
      expect(loadCatalog()).toEqual(catalog);
    } finally {
      process.chdir(cwd);
    }
    expect(bundledCatalogPath).toMatch(/catalog[\\/]coins\.json$/);
  });
});

describe('operator catalog file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('loads a replacement catalog', () => {
    const file = write(
      'ok.json',
      JSON.stringify([{ symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' }]),
    );
    expect(loadCatalog(file)).toEqual([
      { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
    ]);
  });

  it('names the file and the bad entry', () => {
    const file = write(
      'bad.json',
      JSON.stringify([
        { symbol: 'BTC', name_fa: 'بیت‌کوین', name_en: 'Bitcoin', pair: 'BTCUSDT' },
        { symbol: 'ETH', name_fa: 'Ethereum', name_en: 'Ethereum', pair: 'ETHUSDT' },
      ]),
    );
    expect(() => loadCatalog(file)).toThrow(
      `catalog ${file}:1: catalog entry #1 (ETH): name_fa must be a Persian name`,
    );
  });

  it('refuses a row without an English name, naming the file and its line', () => {
    const file = write(
      'no-english.json',
      [
        '[',
        '  {"symbol":"USDT","name_fa":"تتر","name_en":"Tether","pair":null},',
        '  {"symbol":"BTC","name_fa":"بیت‌کوین","name_en":"Bitcoin","pair":"BTCUSDT"},',
        '  {"symbol":"ETH","name_fa":"اتریوم","pair":"ETHUSDT"}',
        ']',
      ].join('\n'),
    );
    expect(() => loadCatalog(file)).toThrow(
      `catalog ${file}:4: catalog entry #2 (ETH): name_en must be the coin's English name`,
    );
  });

  it('gives every bundled coin an English name', () => {
    const names = new Map(loadCatalog().map((entry) => [entry.symbol, entry.name_en]));
    expect(names.get('BTC')).toBe('Bitcoin');
    expect(names.get('ETH')).toBe('Ethereum');
    expect(names.get('USDT')).toBe('Tether');
  });

  it('names the file when it is missing or not JSON', () => {
    const missing = join(dir, 'missing.json');
    expect(() => loadCatalog(missing)).toThrow(`catalog ${missing}: cannot read (ENOENT)`);
    const broken = write('broken.json', '[{"symbol": "BTC",');
    expect(() => loadCatalog(broken)).toThrow(new RegExp(`^catalog ${broken}: not valid JSON`));
  });
});
