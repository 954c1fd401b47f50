import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp } from './test-app.ts';

/**
 * Real nerkh apps for tests written in another language (the Python client's,
 * packages/python/tests): a small control server on a local port, started as
 * `node --import tsx test/support/nerkh-control.ts`, that builds a nerkh the way the TypeScript
 * client's tests do (test-app.ts: in-memory stores, the sample snapshot, an issued key, a fake
 * clock) and lets the test move its clock, issue keys and read which requests reached it. Each
 * test starts its own nerkh and deletes it. It prints its address as one JSON line, and exits when
 * its standard input closes, so it never outlives the test run that started it.
 *
 *   POST   /nerkh                 {"snapshot": null}?  → {id, baseUrl, key, nowMs}
 *   POST   /nerkh/:id/advance     {"ms": 1000}         → {nowMs}
 *   POST   /nerkh/:id/keys        {"rateLimit": 1}?    → {key}
 *   GET    /nerkh/:id/requests                         → {requests, answers}
 *   DELETE /nerkh/:id                                  → 204
 */
interface Running {
  t: TestApp;
  baseUrl: string;
  requests: string[];
  answers: { status: number; conditional: boolean }[];
}

const running = new Map<string, Running>();
let nextId = 1;

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

async function start(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const t = await buildTestApp(body.snapshot === null ? { snapshot: null } : {});
  const requests: string[] = [];
  const answers: Running['answers'] = [];
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  // As packages/client/test/running-nerkh.ts: what reached the socket, whatever answered it.
  t.app.server.on('request', (request, response) => {
    requests.push(request.url ?? '');
    response.on('finish', () =>
      answers.push({
        status: response.statusCode,
        conditional: request.headers['if-none-match'] !== undefined,
      }),
    );
  });
  const { port } = t.app.server.address() as AddressInfo;
  const id = String(nextId++);
  const baseUrl = `http://127.0.0.1:${port}`;
  running.set(id, { t, baseUrl, requests, answers });
  return { id, baseUrl, key: t.key, nowMs: t.clock.nowMs };
}

async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const [, resource, id, action] = (request.url ?? '').split('/');
  const body = await readJson(request);
  const reply = (status: number, value?: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(value === undefined ? undefined : JSON.stringify(value));
  };
  if (resource !== 'nerkh') return reply(404, { error: 'no such resource' });
  if (id === undefined && request.method === 'POST') return reply(201, await start(body));
  const nerkh = running.get(id ?? '');
  if (!nerkh) return reply(404, { error: `no nerkh ${id}` });
  if (action === undefined && request.method === 'DELETE') {
    running.delete(id ?? '');
    await nerkh.t.app.close();
    return reply(204);
  }
  if (action === 'advance' && request.method === 'POST') {
    nerkh.t.clock.advance(Number(body.ms));
    return reply(200, { nowMs: nerkh.t.clock.nowMs });
  }
  if (action === 'keys' && request.method === 'POST') {
    const rateLimit = typeof body.rateLimit === 'number' ? body.rateLimit : undefined;
    return reply(201, { key: (await nerkh.t.issue(rateLimit)).key });
  }
  if (action === 'requests' && request.method === 'GET') {
    return reply(200, { requests: nerkh.requests, answers: nerkh.answers });
  }
  reply(404, { error: 'no such action' });
}

const control = createServer((request, response) => {
  route(request, response).catch((error: unknown) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: String(error) }));
  });
});

async function shutdown(): Promise<void> {
  control.close();
  await Promise.all([...running.values()].map((nerkh) => nerkh.t.app.close()));
  process.exit(0);
}

control.listen(0, '127.0.0.1', () => {
  const { port } = control.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ control: `http://127.0.0.1:${port}` })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
