import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { endConnectionsAtClose } from '../../../src/http/edge/connections-at-close.ts';

/** A listening app whose `/slow` answers when the test says so. */
async function startApp() {
  const app = Fastify();
  endConnectionsAtClose(app);
  let answer: (() => void) | undefined;
  const asked = new Promise<void>((resolve) => {
    app.get('/slow', async () => {
      resolve();
      await new Promise<void>((release) => {
        answer = release;
      });
      return 'the whole answer';
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  onTestFinished(() => app.close());
  const { port } = app.server.address() as AddressInfo;
  return { app, port, asked, answer: () => answer?.() };
}

/** A raw connection to `port` that has sent `text`, and everything it received once it closed. */
async function openConnection(port: number, text: string) {
  const socket = connect(port, '127.0.0.1');
  onTestFinished(() => {
    socket.destroy();
  });
  // A connection ended with part of a request unread is reset: the client sees ECONNRESET.
  socket.on('error', () => {});
  await once(socket, 'connect');
  if (text !== '') socket.write(text);
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  return { closed: new Promise<string>((resolve) => socket.once('close', () => resolve(received))) };
}

describe('endConnectionsAtClose', () => {
  it('closes at once the connections that sent nothing or half a request head', async () => {
    const { app, port } = await startApp();
    const silent = await openConnection(port, '');
    const half = await openConnection(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    // node:http alone waits for both until their clients hang up.
    await app.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await silent.closed).toBe('');
    expect(await half.closed).toBe('');
  });

  it('answers a request in flight in full, then closes its connection', async () => {
    const { app, port, asked, answer } = await startApp();
    const busy = await openConnection(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await asked;
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer();
    await closing;
    const received = await busy.closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.endsWith('the whole answer')).toBe(true);
  });
});
