import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { listen } from '../../src/http/server.ts';
import { parseRawResponse, rawExchange } from '../support/raw-http.ts';
import { buildTestApp, type TestApp } from '../support/test-app.ts';
import { waitFor } from '../support/wait.ts';

describe('over a real socket', () => {
  let t: TestApp;
  let port: number;
  /** Raw sockets a test holds open; destroyed before the app closes, which would wait for them. */
  const rawSockets: net.Socket[] = [];
  const openRaw = () => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    rawSockets.push(socket);
    return socket;
  };
  afterEach(async () => {
    for (const socket of rawSockets.splice(0)) socket.destroy();
    await t.app.close();
  });
  const start = async () => {
    // Real time here: sockets, not a fake clock, decide the order of arrival.
    t = await buildTestApp({ deps: { clock: Date.now } });
    port = Number(new URL(await listen(t.app, '127.0.0.1', 0)).port);
  };

  it('admits exactly 60 of 500 concurrent requests with one key and refuses 440 with 429', async () => {
    await start();
    const agent = new http.Agent({ maxSockets: 500, keepAlive: false });
    const one = () =>
      new Promise<number>((resolve, reject) => {
        const request = http.get(
          { host: '127.0.0.1', port, path: '/v1/rates', agent, headers: { 'x-api-key': t.key } },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
      });
    const statuses = await Promise.all(Array.from({ length: 500 }, one));
    agent.destroy();
    const count = (status: number) => statuses.filter((s) => s === status).length;
    expect({ ok: count(200), limited: count(429), other: 500 - count(200) - count(429) }).toEqual({
      ok: 60,
      limited: 440,
      other: 0,
    });
  });

  it('closes a connection whose headers trickle in past NERKH_HEADERS_TIMEOUT_MS, and serves others meanwhile', async () => {
    t = await buildTestApp({ deps: { clock: Date.now }, env: { NERKH_HEADERS_TIMEOUT_MS: '1000' } });
    port = Number(new URL(await listen(t.app, '127.0.0.1', 0)).port);
    const socket = openRaw();
    const openedAt = Date.now();
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - openedAt)));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    // One header line every 300 ms, never the blank line that ends them: a slowloris client.
    socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 300);
    onTestFinished(() => clearInterval(trickle));
    const other = await fetch(`http://127.0.0.1:${port}/v1/rates`, { headers: { 'x-api-key': t.key } });
    expect(other.status).toBe(200);
    const lifetime = await closed;
    expect(received).toMatch(/^HTTP\/1.1 408 /);
    expect(lifetime).toBeGreaterThanOrEqual(1000);
    expect(lifetime).toBeLessThan(4000);
  });

  it('closes connections beyond NERKH_MAX_CONNECTIONS at once', async () => {
    t = await buildTestApp({ deps: { clock: Date.now }, env: { NERKH_MAX_CONNECTIONS: '2' } });
    port = Number(new URL(await listen(t.app, '127.0.0.1', 0)).port);
    const held = [openRaw(), openRaw()];
    await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
    const third = await rawExchange(port, 'GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(third).toBe('');
    for (const socket of held) socket.destroy();
    // The server counts a connection gone when it sees it close, a moment after the client does.
    const freed = () =>
      fetch(`http://127.0.0.1:${port}/v1/rates`, { headers: { 'x-api-key': t.key } }).then(
        (response) => response.status === 200,
        () => false,
      );
    await waitFor(freed, 3000, 'a free connection slot');
  });

  it('answers oversized headers with 431 as a problem document', async () => {
    await start();
    const raw = await rawExchange(
      port,
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const response = parseRawResponse(raw);
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ code: 'request-header-fields-too-large', status: 431 });
  });

  it.each([
    ['an unknown method', 'FOO /v1/rates HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad-request'],
    ['garbage', 'hello\r\n\r\n', 400, 'bad-request'],
    [
      'CONNECT',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      405,
      'method-not-allowed',
    ],
    ['a broken percent-encoding', 'GET /v1/%ZZ HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad-request'],
    [
      'an unsupported Expect',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nExpect: fly\r\n\r\n',
      417,
      'expectation-failed',
    ],
  ])('answers %s with a problem document', async (_label, request, status, code) => {
    await start();
    const response = parseRawResponse(await rawExchange(port, request));
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(response.body)).toMatchObject({ code, status });
  });

  it('reports a taken port in one line', async () => {
    await start();
    const second = await buildTestApp();
    onTestFinished(() => second.app.close());
    await expect(listen(second.app, '127.0.0.1', port)).rejects.toThrow(
      `port ${port} on 127.0.0.1 is already in use; stop what holds it or set PORT to a free port`,
    );
  });
});

describe('graceful shutdown', () => {
  let child: ChildProcess | null = null;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('finishes a request in flight when SIGTERM arrives, then exits 0', async () => {
    const fixture = fileURLToPath(new URL('../support/slow-request-server.ts', import.meta.url));
    child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve) => {
      let output = '';
      child?.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(output.trim());
      });
    });
    const inFlight = fetch(`${url}/test/slow`).then(async (response) => ({
      status: response.status,
      body: await response.json(),
    }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    expect(await inFlight).toEqual({ status: 200, body: { finished: true } });
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
  });
});
