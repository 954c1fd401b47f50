import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type EncodedBody, quickBrotli } from '../../../src/http/snapshot/body-encoding.ts';
import { SnapshotView } from '../../../src/http/snapshot/snapshot-view.ts';
import { sampleSnapshot } from '../../support/test-app.ts';

const labels = { source: 'binance+nobitex', disclaimer: 'Informational.', refreshSeconds: 600 };
const snapshot = { id: 7, ...sampleSnapshot() };

function decoded(body: EncodedBody): string[] {
  return [
    body.identity.body.toString('utf8'),
    gunzipSync(body.gzip.body).toString('utf8'),
    brotliDecompressSync(body.br.body).toString('utf8'),
  ];
}

describe('SnapshotView', () => {
  it('holds the full list in every coding, each with its own ETag', async () => {
    const view = await SnapshotView.build(snapshot, labels);
    const [identity, gzip, br] = decoded(view.all);
    expect(gzip).toBe(identity);
    expect(br).toBe(identity);
    expect(JSON.parse(identity as string)).toMatchObject({ count: 4, updated_at: snapshot.updated_at });
    expect(new Set([view.all.identity.etag, view.all.gzip.etag, view.all.br.etag]).size).toBe(3);
  });

  it('prepares every symbol in the background, the same bytes and ETags as one made on request', async () => {
    const prepared = await SnapshotView.build(snapshot, labels);
    await prepared.prepare();
    const onRequest = await SnapshotView.build(snapshot, labels);
    for (const row of snapshot.rates) {
      const ready = prepared.forSymbol(row.symbol) as EncodedBody;
      const made = onRequest.forSymbol(row.symbol) as EncodedBody;
      expect(decoded(ready)).toEqual(decoded(made));
      expect(ready.br.etag).toBe(made.br.etag);
      expect(JSON.parse(ready.identity.body.toString('utf8')).rates).toEqual([row]);
      // The same object every time: nothing is encoded twice.
      expect(prepared.forSymbol(row.symbol)).toBe(ready);
    }
    expect(prepared.forSymbol('NOPE')).toBeNull();
  });

  it('answers a set of symbols in the order of the full list, one body per set, null when one is not listed', async () => {
    const view = await SnapshotView.build(snapshot, labels);
    const set = view.forSymbols(['USDT', 'BTC']) as EncodedBody;
    const [identity, gzip, br] = decoded(set);
    expect(gzip).toBe(identity);
    expect(br).toBe(identity);
    const body = JSON.parse(identity as string);
    expect(body.count).toBe(2);
    expect(body.rates.map((row: { symbol: string }) => row.symbol)).toEqual(['BTC', 'USDT']);
    expect(view.forSymbols(['BTC', 'USDT'])).toBe(set);
    expect(view.forSymbols(['ETH'])).toBe(view.forSymbol('ETH'));
    expect(view.forSymbols(['BTC', 'NOPE'])).toBeNull();
    expect(new Set([set.identity.etag, set.gzip.etag, set.br.etag, view.all.identity.etag]).size).toBe(4);
  });

  it('built with a quick brotli quality, re-encodes the full list at the best one with its own ETag', async () => {
    const best = await SnapshotView.build(snapshot, labels);
    const quick = await SnapshotView.build(snapshot, labels, quickBrotli);
    const served = quick.all;
    expect(decoded(served)).toEqual(decoded(best.all));
    expect(served.br.etag).not.toBe(best.all.br.etag);
    expect(served.br.body.length).toBeGreaterThan(best.all.br.body.length);

    await quick.prepare();
    expect(quick.all.br.etag).toBe(best.all.br.etag);
    expect(quick.all.br.body.equals(best.all.br.body)).toBe(true);
    expect(quick.all.br.fieldLines).toBe(best.all.br.fieldLines);
    // What does not depend on brotli's quality stays as it was.
    expect(quick.all.gzip).toBe(served.gzip);
    expect(quick.all.identity).toBe(served.identity);
  });

  it('counts Cache-Control max-age down to the next refresh, never below 0', async () => {
    const view = await SnapshotView.build(snapshot, labels);
    const committedMs = Date.parse(snapshot.updated_at);
    expect(view.cacheControl(committedMs)).toBe('private, max-age=600');
    expect(view.cacheControl(committedMs + 100_500)).toBe('private, max-age=500');
    expect(view.cacheControl(committedMs + 700_000)).toBe('private, max-age=0');
  });
});
