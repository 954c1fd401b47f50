import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { KeyUse, LastUseWriter } from '../../src/keys/key-use-writer.ts';
import { createLogger } from '../../src/logger.ts';
import type { KeyDayUsage } from '../../src/store/key-usage.ts';
import { LogCapture } from '../support/test-app.ts';

/** A store that keeps what it is handed, one map (and one usage list) per transaction. */
class RecordingStore {
  readonly batches: Map<string, string>[] = [];
  readonly usage: KeyDayUsage[][] = [];
  async recordApiKeyUse(
    lastUsed: ReadonlyMap<string, string>,
    usage: readonly KeyDayUsage[] = [],
  ): Promise<void> {
    this.batches.push(new Map(lastUsed));
    this.usage.push([...usage]);
  }
}

function writerFor(
  store: RecordingStore,
  live: KeyUse[],
  options: { flushMs?: number; flushChunk?: number } = {},
) {
  const writer = new LastUseWriter({
    store,
    logger: createLogger('silent'),
    liveKeys: () => live,
    flushMs: options.flushMs ?? 60_000,
    ...(options.flushChunk === undefined ? {} : { flushChunk: options.flushChunk }),
  });
  onTestFinished(() => writer.close());
  return writer;
}

const at = (iso: string) => Date.parse(iso);

describe('LastUseWriter', () => {
  it("writes each live key's latest use once, and nothing when no key was used since", async () => {
    const store = new RecordingStore();
    const a = new KeyUse('a');
    const b = new KeyUse('b');
    const writer = writerFor(store, [a, b]);
    a.used(at('2025-01-01T00:00:00Z'));
    a.used(at('2025-01-01T00:00:05Z'));
    await writer.flush();
    expect(store.batches).toEqual([new Map([['a', '2025-01-01T00:00:05.000Z']])]);
    await writer.flush();
    expect(store.batches).toHaveLength(1);
    b.used(at('2025-01-01T00:01:00Z'));
    await writer.flush();
    expect(store.batches[1]).toEqual(new Map([['b', '2025-01-01T00:01:00.000Z']]));
  });

  it('keeps the unwritten use of a key that leaves the live ones', async () => {
    const store = new RecordingStore();
    const gone = new KeyUse('gone');
    const writer = writerFor(store, []);
    gone.used(at('2025-01-01T00:00:00Z'));
    writer.keep([gone]);
    await writer.flush();
    expect(store.batches).toEqual([new Map([['gone', '2025-01-01T00:00:00.000Z']])]);
  });

  it('writes last use in small transactions, letting other work run between them', async () => {
    const store = new RecordingStore();
    const keys = Array.from({ length: 12 }, (_, i) => new KeyUse(`k${i}`));
    for (const key of keys) key.used(at('2025-01-01T00:00:00Z'));
    const writer = writerFor(store, keys, { flushChunk: 5 });
    let ranBetween = false;
    setImmediate(() => {
      ranBetween = store.batches.length > 0 && store.batches.length < 3;
    });
    await writer.flush();
    expect(store.batches.map((batch) => batch.size)).toEqual([5, 5, 2]);
    expect(ranBetween).toBe(true);
    expect(new Set(store.batches.flatMap((batch) => [...batch.keys()]))).toEqual(
      new Set(keys.map((key) => key.id)),
    );
  });

  it('writes what a failed flush kept in chunks as small as the others, none lost', async () => {
    const batches: string[][] = [];
    let storeUp = false;
    const keys = Array.from({ length: 5 }, (_, i) => new KeyUse(`k${i}`));
    for (const key of keys) key.used(at('2025-01-01T00:00:00Z'));
    const writer = new LastUseWriter({
      store: {
        async recordApiKeyUse(lastUsed) {
          if (!storeUp) throw new Error('store is down');
          batches.push([...lastUsed.keys()]);
        },
      },
      logger: createLogger('silent'),
      liveKeys: () => keys,
      flushChunk: 2,
    });
    onTestFinished(() => writer.close());
    await writer.flush();
    storeUp = true;
    await writer.flush();
    expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
    expect(batches.flat().sort()).toEqual(keys.map((key) => key.id));
  });

  it('writes what evicted keys hold at once when many wait, not at the next flush', async () => {
    const store = new RecordingStore();
    const writer = new LastUseWriter({
      store,
      logger: createLogger('silent'),
      liveKeys: () => [],
      flushMs: 60_000,
      heldBound: 3,
    });
    onTestFinished(() => writer.close());
    writer.start();
    const evicted = Array.from({ length: 3 }, (_, i) => new KeyUse(`k${i}`));
    for (const key of evicted) key.used(at('2025-01-01T00:00:00Z'));
    writer.keep(evicted.slice(0, 2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.batches).toEqual([]);
    writer.keep(evicted.slice(2));
    await vi.waitFor(() => expect(store.batches).toHaveLength(1));
    expect([...(store.batches[0] as Map<string, string>).keys()]).toEqual(['k0', 'k1', 'k2']);
  });

  it('does not ask a failing store again at every eviction: the next flush tries again', async () => {
    let calls = 0;
    const writer = new LastUseWriter({
      store: {
        async recordApiKeyUse() {
          calls++;
          throw new Error('store is down');
        },
      },
      logger: createLogger('silent'),
      liveKeys: () => [],
      heldBound: 1,
    });
    const evicted = Array.from({ length: 5 }, (_, i) => new KeyUse(`k${i}`));
    for (const key of evicted) key.used(at('2025-01-01T00:00:00Z'));
    writer.keep(evicted.slice(0, 1));
    await vi.waitFor(() => expect(calls).toBe(1));
    for (const key of evicted.slice(1)) writer.keep([key]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(1);
    await writer.flush();
    expect(calls).toBe(2);
  });

  it('writes every flush period once started, and what is left at close', async () => {
    const store = new RecordingStore();
    const key = new KeyUse('k');
    const writer = writerFor(store, [key], { flushMs: 20 });
    writer.start();
    key.used(at('2025-01-01T00:00:00Z'));
    await vi.waitFor(() => expect(store.batches).toHaveLength(1));
    key.used(at('2025-01-01T00:00:01Z'));
    await writer.close();
    expect(store.batches.at(-1)).toEqual(new Map([['k', '2025-01-01T00:00:01.000Z']]));
  });

  it('closes only once a flush under way has written every batch it took', async () => {
    const written: string[] = [];
    const keys = [new KeyUse('a'), new KeyUse('b')];
    for (const key of keys) key.used(at('2025-01-01T00:00:00Z'));
    const writer = new LastUseWriter({
      store: {
        async recordApiKeyUse(lastUsed) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          written.push(...lastUsed.keys());
        },
      },
      logger: createLogger('silent'),
      liveKeys: () => keys,
      flushChunk: 1,
    });
    void writer.flush();
    await writer.close();
    expect(written).toEqual(['a', 'b']);
  });

  it('logs a failed write and goes on with the next', async () => {
    const logs = new LogCapture();
    const key = new KeyUse('k');
    let calls = 0;
    const writer = new LastUseWriter({
      store: {
        async recordApiKeyUse() {
          calls++;
          if (calls === 1) throw new Error('store is down');
        },
      },
      logger: createLogger('info', logs),
      liveKeys: () => [key],
    });
    onTestFinished(() => writer.close());
    key.used(at('2025-01-01T00:00:00Z'));
    await writer.flush();
    expect(logs.text).toContain('writing API key last-use times and usage failed');
    key.used(at('2025-01-01T00:00:01Z'));
    await writer.flush();
    expect(calls).toBe(2);
  });

  it('writes admitted and refused counts per UTC day with the last use, each count once', async () => {
    const store = new RecordingStore();
    const a = new KeyUse('a');
    const writer = writerFor(store, [a]);
    for (let i = 0; i < 3; i++) a.counted(true, at('2025-01-01T23:59:58Z'));
    a.counted(false, at('2025-01-01T23:59:59Z'));
    // A day ends between two flushes: both days are written, each under its own date.
    a.counted(true, at('2025-01-02T00:00:00Z'));
    a.counted(false, at('2025-01-02T00:00:01Z'));
    a.used(at('2025-01-02T00:00:01Z'));
    await writer.flush();
    expect(store.usage).toEqual([
      [
        { keyId: 'a', day: '2025-01-01', admitted: 3, refused: 1 },
        { keyId: 'a', day: '2025-01-02', admitted: 1, refused: 1 },
      ],
    ]);
    expect(store.batches).toEqual([new Map([['a', '2025-01-02T00:00:01.000Z']])]);
    a.counted(true, at('2025-01-02T00:00:02Z'));
    await writer.flush();
    await writer.flush();
    expect(store.usage.slice(1)).toEqual([[{ keyId: 'a', day: '2025-01-02', admitted: 1, refused: 0 }]]);
  });

  it('writes what a key counts after it left the live ones, as a request still holding it does', async () => {
    const store = new RecordingStore();
    const gone = new KeyUse('k');
    const live = new KeyUse('k');
    const writer = writerFor(store, [live]);
    gone.counted(true, at('2025-01-01T00:00:00Z'));
    writer.keep([gone]);
    await writer.flush();
    // A decision a shared limiter answered after the key left the cache.
    gone.counted(false, at('2025-01-01T00:00:01Z'));
    live.counted(true, at('2025-01-01T00:00:02Z'));
    await writer.flush();
    expect(store.usage).toEqual([
      [{ keyId: 'k', day: '2025-01-01', admitted: 1, refused: 0 }],
      [{ keyId: 'k', day: '2025-01-01', admitted: 1, refused: 1 }],
    ]);
  });

  it('keeps the counts of a failed write for the next flush, losing none', async () => {
    const written: KeyDayUsage[][] = [];
    let calls = 0;
    const key = new KeyUse('k');
    const writer = new LastUseWriter({
      store: {
        async recordApiKeyUse(_lastUsed, usage = []) {
          calls++;
          if (calls === 1) throw new Error('store is down');
          written.push([...usage]);
        },
      },
      logger: createLogger('silent'),
      liveKeys: () => [key],
    });
    onTestFinished(() => writer.close());
    key.counted(true, at('2025-01-01T00:00:00Z'));
    await writer.flush();
    key.counted(false, at('2025-01-01T00:00:01Z'));
    await writer.flush();
    expect(written).toEqual([[{ keyId: 'k', day: '2025-01-01', admitted: 1, refused: 1 }]]);
  });
});
