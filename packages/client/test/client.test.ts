import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isStale,
  NerkhBudgetError,
  NerkhClient,
  type NerkhClientOptions,
  NerkhProblemError,
  NerkhRequestError,
  rowAgeSeconds,
} from '../src/index.ts';
import { type RunningNerkh, startNerkh } from './running-nerkh.ts';

let nerkh: RunningNerkh;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function start(options: Parameters<typeof startNerkh>[0] = {}): Promise<RunningNerkh> {
  nerkh = await startNerkh(options);
  cleanups.push(() => nerkh.close());
  return nerkh;
}

/** A client on the running nerkh whose clock is the server's fake clock, and whose sleep advances it. */
function clientOf(options: Partial<NerkhClientOptions> = {}): { client: NerkhClient; sleeps: number[] } {
  const sleeps: number[] = [];
  const client = new NerkhClient({
    baseUrl: nerkh.baseUrl,
    apiKey: nerkh.key,
    clock: nerkh.clock.now,
    sleep: async (ms) => {
      sleeps.push(ms);
      nerkh.clock.advance(ms);
    },
    ...options,
  });
  return { client, sleeps };
}

describe('NerkhClient against a running nerkh', () => {
  it('returns the typed rates, one symbol case-insensitively, and the parsed RateLimit fields', async () => {
    await start();
    const { client } = clientOf({ cache: false });
    const all = await client.getRates();
    expect(all.status).toBe(200);
    expect(all.data.side).toBe('sell');
    expect(all.data.rates.map((row) => row.symbol)).toEqual(['BTC', 'ETH', 'SHIB', 'USDT']);
    expect(all.data.count).toBe(4);
    expect(all.rateLimit).toEqual({
      policies: [{ name: 'default', quota: 60, window: 60 }],
      limits: [{ name: 'default', remaining: 59, reset: 60 }],
    });
    const btc = await client.getRates({ symbol: 'btc' });
    expect(btc.data.rates).toHaveLength(1);
    expect(btc.data.rates[0]?.sell_irt).toBe(Math.round(97_250.5 * 92_150));
    expect(client.rateLimit?.limits[0]?.remaining).toBe(58);
    expect(nerkh.requests).toEqual(['/v1/rates', '/v1/rates?symbol=btc']);
  });

  it('asks for several symbols in one request, counted once, rows sorted by symbol', async () => {
    await start();
    const { client } = clientOf({ cache: false });
    const some = await client.getRates({ symbols: ['usdt', 'BTC', 'btc'] });
    expect(some.data.rates.map((row) => row.symbol)).toEqual(['BTC', 'USDT']);
    expect(some.rateLimit?.limits[0]?.remaining).toBe(59);
    expect(nerkh.requests).toEqual(['/v1/rates?symbols=usdt,BTC,btc']);
    const unknown = await client
      .getRates({ symbols: ['BTC', 'DOGE', 'XYZ'] })
      .catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: 'unknown-symbol', status: 404 });
    expect((unknown as NerkhProblemError).problem['unknown-symbols']).toEqual(['DOGE', 'XYZ']);
    await expect(client.getRates({ symbols: ['BTC', 'ETH-USD'] })).rejects.toMatchObject({
      code: 'invalid-symbol',
      detail: 'symbols item 2 ("ETH-USD") is not 1 to 20 ASCII letters or digits.',
    });
    await expect(client.getRates({ symbols: ['BTC', 'A,B'] })).rejects.toThrow(TypeError);
    await expect(client.getRates({ symbols: [] })).rejects.toThrow(TypeError);
    await expect(client.getRates({ symbol: 'BTC', symbols: ['ETH'] })).rejects.toThrow(TypeError);
    expect(client.rateLimit?.limits[0]?.remaining).toBe(57);
  });

  it('turns every problem into a NerkhProblemError with code, status and detail', async () => {
    await start();
    const { client } = clientOf({ cache: false });
    const unknown = await client.getRates({ symbol: 'DOGE' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(NerkhProblemError);
    expect(unknown).toMatchObject({ code: 'unknown-symbol', status: 404, retryAfter: null });
    expect((unknown as NerkhProblemError).detail).toContain('DOGE is not listed');
    await expect(client.getRates({ symbol: 'no-such!' })).rejects.toMatchObject({
      code: 'invalid-symbol',
      status: 400,
    });
    const wrongKey = clientOf({ apiKey: 'nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa' }).client;
    await expect(wrongKey.getRates()).rejects.toMatchObject({ code: 'invalid-api-key', status: 403 });
    const noKey = new NerkhClient({ baseUrl: nerkh.baseUrl });
    await expect(noKey.getRates()).rejects.toThrow(/apiKey is required/);
  });

  it('on 429 waits Retry-After on its (fake) clock and retries once when asked, and the retry is admitted', async () => {
    await start();
    const limited = await nerkh.issue(1);
    const { client, sleeps } = clientOf({
      apiKey: limited.key,
      cache: false,
      budget: false,
      retry: { attempts: 1 },
    });
    await client.getRates();
    const second = await client.getRates();
    expect(second.status).toBe(200);
    expect(sleeps).toEqual([60_000]);
    expect(nerkh.answers.map((answer) => answer.status)).toEqual([200, 429, 200]);
  });

  it('does not retry a 429 by default, nor one that asks for a longer wait than allowed', async () => {
    await start();
    const limited = await nerkh.issue(1);
    const plain = clientOf({ apiKey: limited.key, cache: false, budget: false });
    await plain.client.getRates();
    await expect(plain.client.getRates()).rejects.toMatchObject({
      code: 'rate-limited',
      status: 429,
      retryAfter: 60,
    });
    const impatient = clientOf({
      apiKey: limited.key,
      cache: false,
      budget: false,
      retry: { attempts: 3, maxWaitSeconds: 10 },
    });
    await expect(impatient.client.getRates()).rejects.toMatchObject({ code: 'rate-limited', retryAfter: 60 });
    expect(impatient.sleeps).toEqual([]);
    expect(plain.sleeps).toEqual([]);
  });

  it('never retries 401 or 403, even with retries on', async () => {
    await start();
    const { client, sleeps } = clientOf({
      apiKey: 'nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa',
      retry: { attempts: 5, maxWaitSeconds: 3600 },
    });
    await expect(client.getRates()).rejects.toMatchObject({ status: 403 });
    expect(sleeps).toEqual([]);
    expect(nerkh.requests).toHaveLength(1);
  });

  it('keeps under the quota with its budget: the request over it fails locally, never reaching the server', async () => {
    await start();
    const limited = await nerkh.issue(2);
    const { client } = clientOf({ apiKey: limited.key, cache: false });
    await client.getRates();
    await client.getRates();
    const refused = await client.getRates().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NerkhBudgetError);
    expect((refused as NerkhBudgetError).retryAfter).toBe(60);
    expect(nerkh.requests).toHaveLength(2);
    nerkh.clock.advance(60_000);
    expect((await client.getRates()).status).toBe(200);
  });

  it('with retries on, waits out its own budget instead of being refused', async () => {
    await start();
    const limited = await nerkh.issue(1);
    const { client, sleeps } = clientOf({ apiKey: limited.key, cache: false, retry: { attempts: 1 } });
    await client.getRates();
    expect((await client.getRates()).status).toBe(200);
    expect(sleeps).toEqual([60_000]);
    expect(nerkh.requests).toHaveLength(2);
  });

  it('polling every second makes one request per max-age, then revalidates with If-None-Match and reuses the body on 304', async () => {
    await start();
    const { client } = clientOf();
    const first = await client.getRates();
    expect(first.source).toBe('network');
    // The sample snapshot was committed at 12:00, the clock reads 12:01 and refreshes are due every
    // 10 minutes: max-age is 540 s.
    for (let second = 1; second < 540; second += 1) {
      nerkh.clock.advance(1000);
      expect((await client.getRates()).source).toBe('cache');
    }
    expect(nerkh.requests).toEqual(['/v1/rates']);
    nerkh.clock.advance(1000);
    const revalidated = await client.getRates();
    expect(revalidated.source).toBe('revalidated');
    expect(revalidated.data).toEqual(first.data);
    expect(nerkh.answers).toEqual([
      { status: 200, conditional: false },
      { status: 304, conditional: true },
    ]);
    // 540 s later the first request has left the 60-second window: the 304 counted, 59 remain.
    expect(revalidated.rateLimit?.limits[0]?.remaining).toBe(59);
  });

  it('sends If-None-Match and gets 304 even without max-age (a snapshot that is overdue)', async () => {
    await start();
    nerkh.clock.advance(3600_000);
    const { client } = clientOf();
    expect((await client.getRates()).source).toBe('network');
    const again = await client.getRates();
    expect(again.source).toBe('revalidated');
    expect(nerkh.answers.map((answer) => answer.status)).toEqual([200, 304]);
  });

  it('returns the health report without a key, 503 included, and never caches it (no-store)', async () => {
    await start({ snapshot: null });
    const client = new NerkhClient({ baseUrl: `${nerkh.baseUrl}/v1/` });
    const health = await client.getHealth();
    expect(health.status).toBe(503);
    expect(health.data.status).toBe('fail');
    await client.getHealth();
    expect(nerkh.requests).toEqual(['/v1/health', '/v1/health']);
    const keyed = clientOf().client;
    await expect(keyed.getRates()).rejects.toMatchObject({ code: 'service-unavailable', status: 503 });
  });

  it('tells a row’s age from its as_of, not from updated_at', async () => {
    await start();
    const { data } = await clientOf().client.getRates();
    const shib = data.rates.find((row) => row.symbol === 'SHIB');
    if (!shib) throw new Error('SHIB row missing');
    // The snapshot is 60 s old (updated_at 12:00:00), but SHIB last moved at 09:00.
    expect(rowAgeSeconds(shib, nerkh.clock.now())).toBe(3 * 3600 + 60);
    expect(isStale(shib, 3600, nerkh.clock.now())).toBe(true);
    const btc = data.rates.find((row) => row.symbol === 'BTC');
    if (!btc) throw new Error('BTC row missing');
    expect(isStale(btc, 600, nerkh.clock.now())).toBe(false);
  });
});

describe('NerkhClient timeouts, aborts and the base URL', () => {
  /** A TCP server that accepts connections and never answers. */
  async function silentServer(): Promise<string> {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return `http://127.0.0.1:${address.port}`;
  }

  it('gives up after timeoutMs with a NerkhRequestError of code timeout', async () => {
    const client = new NerkhClient({ baseUrl: await silentServer(), apiKey: 'nerkh_x', timeoutMs: 200 });
    await expect(client.getHealth()).rejects.toMatchObject({ name: 'NerkhRequestError', code: 'timeout' });
    await expect(client.getHealth()).rejects.toBeInstanceOf(NerkhRequestError);
  });

  it('stops when the caller’s AbortSignal fires, with the signal’s reason', async () => {
    const client = new NerkhClient({ baseUrl: await silentServer() });
    const controller = new AbortController();
    const pending = client.getHealth({ signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
  });

  it.each([
    'https://rates.example/v1?key=nerkh_AbC123abc',
    'https://rates.example/v1?api_key=x',
    'https://user:secret@rates.example/v1',
    'https://rates.example/nerkh_AbC123defGhi/v1',
    'https://rates.example/v1#nerkh',
  ])('refuses a key or credentials in the base URL: %s', (baseUrl) => {
    expect(() => new NerkhClient({ baseUrl, apiKey: 'nerkh_key' })).toThrow(/must not carry a key/);
  });

  it('refuses a base URL that contains the configured key itself', () => {
    expect(
      () => new NerkhClient({ baseUrl: 'https://rates.example/secret123', apiKey: 'secret123' }),
    ).toThrow(/must not carry a key/);
  });
});
