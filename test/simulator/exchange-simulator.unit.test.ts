import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { connect, startSimulator } from '../support/simulator.ts';
import { waitFor } from '../support/wait.ts';

const BINANCE_451 =
  '{"code":0,"msg":"Service unavailable from a restricted location according to \'b. Eligibility\' in https://www.binance.com/en/terms. Please contact customer service if you believe you received this message in error."}';

/** The raw answer to a WebSocket upgrade request. */
function upgradeAnswer(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, body: '' });
    });
    request.on('error', reject);
  });
}

describe('exchange simulator', () => {
  it('answers 404 on a path no exchange serves', async () => {
    const sim = await startSimulator();
    const response = await fetch(`${sim.restBaseUrl}/api/v3/depth`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
  });
});

describe('fault modes', () => {
  it('corrupts prices on the wire: negative, NaN and ×1000, for Binance ask and Nobitex bestSell', async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    const stats = async () =>
      (
        (await (await fetch(`${sim.nobitexBaseUrl}/market/stats`)).json()) as {
          stats: Record<string, { bestSell: string }>;
        }
      ).stats['usdt-rls']?.bestSell;
    sim.setUsdtBestSellRial('1050000');

    sim.setFault('negative');
    sim.tick('BTCUSDT', '90000');
    expect(await client.next()).toMatchObject({ data: { a: '-90000.00000000' } });
    expect(await stats()).toBe('-1050000');

    sim.setFault('nan');
    sim.tick('BTCUSDT');
    expect(await client.next()).toMatchObject({ data: { a: 'NaN' } });
    expect(await stats()).toBe('NaN');

    sim.setFault('absurd');
    sim.tick('BTCUSDT');
    expect(await client.next()).toMatchObject({ data: { a: '90000000.00000000' } });
    expect(await stats()).toBe('1050000000');
    expect(sim.askOf('BTCUSDT')).toBe('90000.00000000');
  });
});

describe('geo-block', () => {
  it("answers Binance's REST with 451 and Binance's body, stream upgrades with an empty-bodied 451, ends open streams, and lifts", async () => {
    const sim = await startSimulator();
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    sim.setFault('geo-block', 'binance');
    await waitFor(() => client.closed, 2_000, 'the open stream to end');

    const rest = await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`);
    expect(rest.status).toBe(451);
    expect(await rest.text()).toBe(BINANCE_451);
    const ws = sim.wsBaseUrl.replace(/^ws:/, 'http:');
    expect(await upgradeAnswer(`${ws}/stream?streams=btcusdt@ticker`)).toEqual({ status: 451, body: '' });
    expect((await fetch(`${sim.nobitexBaseUrl}/market/stats`)).status).toBe(200);

    sim.setFault('none', 'binance');
    expect((await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`)).status).toBe(200);
    expect((await upgradeAnswer(`${ws}/stream?streams=btcusdt@ticker`)).status).toBe(101);
  });

  it('stays up when a client resets the connection it refused an upgrade on', async () => {
    const sim = await startSimulator();
    sim.setFault('geo-block', 'binance');
    const { hostname, port } = new URL(sim.wsBaseUrl);
    for (let attempt = 0; attempt < 20; attempt++) {
      // A client that gives up on the 451 at once resets the connection (RST) while the
      // simulator's side of it is still open: an 'error' on a socket nothing listens on.
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect(Number(port), hostname, () => {
          socket.write(
            'GET /stream?streams=btcusdt@ticker HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
              'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
          );
        });
        socket.once('data', () => {
          socket.resetAndDestroy();
          resolve();
        });
        socket.once('error', reject);
      });
    }
    // Still serving; an uncaught error would have failed the run.
    const rest = await fetch(`${sim.restBaseUrl}/api/v3/ticker/24hr?symbol=BTCUSDT`);
    expect(rest.status).toBe(451);
  });

  it('answers the other exchanges with 451 and their own error body', async () => {
    const sim = await startSimulator();
    sim.setFault('geo-block', 'all');
    const nobitex = await fetch(`${sim.nobitexBaseUrl}/market/stats`);
    expect(nobitex.status).toBe(451);
    expect(await nobitex.json()).toMatchObject({ status: 'failed' });
    expect((await fetch(sim.panelUrl)).status).toBe(451);
  });
});

describe('random walk', () => {
  it('ticks busy coins every second on its own', async () => {
    const sim = await startSimulator({ autoTick: true });
    const client = await connect(sim, '/stream?streams=btcusdt@ticker');
    await waitFor(() => client.frames.length >= 2, 4_000, 'two BTC ticks');
    const asks = client.frames.map((frame) => (JSON.parse(frame) as { data: { a: string } }).data.a);
    for (const ask of asks) expect(Number(ask)).toBeGreaterThan(50_000);
    expect(sim.askOf('BTCUSDT')).toBe(asks.at(-1));
  });
});
