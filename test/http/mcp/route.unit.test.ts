import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { mcpBodyLimit } from '../../../src/http/mcp/route.ts';
import {
  buildTestApp,
  LogCapture,
  publicUrl,
  type TestApp,
  type TestAppOptions,
} from '../../support/test-app.ts';

/** The app of the running test, closed when it ends. */
async function openApp(options?: TestAppOptions): Promise<TestApp> {
  const opened = await buildTestApp(options);
  onTestFinished(() => opened.app.close());
  return opened;
}

/** The Fetch API answered by the app in-process: the SDK's own HTTP client, with no socket. */
function injectFetch(t: TestApp): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const response = await t.app.inject({
      method: (init?.method ?? 'GET') as 'POST',
      url: `${url.pathname}${url.search}`,
      headers,
      ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
    });
    return new Response(response.statusCode === 202 || response.body === '' ? null : response.body, {
      status: response.statusCode,
      headers: response.headers as Record<string, string>,
    });
  };
}

/** An MCP client of the app's `/mcp`, sending `key` in X-API-Key when given. */
async function connect(t: TestApp, key?: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${publicUrl}/mcp`), {
    fetch: injectFetch(t),
    requestInit: { headers: key === undefined ? {} : { 'X-API-Key': key } },
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text: string }[]).map((item) => item.text);

const post = (t: TestApp, body: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('POST /mcp', () => {
  it('initializes without a key and lists two read-only tools that say to judge each row by its as_of', async () => {
    const t = await openApp();
    const client = await connect(t);
    expect(client.getServerVersion()).toMatchObject({ name: 'nerkh' });
    expect(client.getInstructions()).toContain('X-API-Key');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['get_sell_rates', 'get_service_health']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.outputSchema?.type).toBe('object');
    }
    expect(tools[0]?.description).toContain('own as_of');
    expect(tools[0]?.inputSchema.properties).toHaveProperty('symbols');
  });

  it('get_sell_rates answers BTC and ETH from /v1/rates, counted once against the key, as the route would', async () => {
    const t = await openApp();
    const client = await connect(t, t.key);
    const result = await client.callTool({ name: 'get_sell_rates', arguments: { symbols: ['btc', 'ETH'] } });
    expect(result.isError).toBeFalsy();
    const route = await t.app.inject({ url: '/v1/rates?symbols=BTC,ETH', headers: { 'x-api-key': t.key } });
    // The SDK client checked structuredContent against the tool's output schema.
    expect(result.structuredContent).toEqual(route.json());
    expect(textOf(result)[0]).toMatch(
      /BTC: 97250\.5 USDT, 8961633575 toman; as_of 2025-01-01T11:59:58\.000Z, \d+ (min|h) old; from binance, converted at the tether rate from nobitex\n/,
    );
    expect(textOf(result)[0]).toContain('own as_of');
    // The tool call was the key's first request, the route's own the second.
    expect(route.headers.ratelimit).toBe('"default";r=58;t=60');
  });

  it('refuses a rates call without a key or with a wrong one as a tool error carrying the problem, never a price', async () => {
    const t = await openApp();
    const anonymous = await connect(t);
    const missing = await anonymous.callTool({ name: 'get_sell_rates', arguments: { symbol: 'BTC' } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    const [sentence, problem] = textOf(missing);
    expect(sentence).toContain('missing-api-key');
    expect(sentence).toContain('X-API-Key');
    expect(JSON.parse(problem as string)).toMatchObject({ code: 'missing-api-key', status: 401 });
    const wrong = await connect(t, 'nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa');
    const invalid = await wrong.callTool({ name: 'get_sell_rates', arguments: {} });
    expect(invalid.isError).toBe(true);
    expect(JSON.parse(textOf(invalid)[1] as string)).toMatchObject({ code: 'invalid-api-key', status: 403 });
    expect(JSON.stringify(invalid)).not.toContain('sell_usdt');
    // The health tool needs no key.
    const health = await anonymous.callTool({ name: 'get_service_health', arguments: {} });
    expect(health.isError).toBeFalsy();
    expect(health.structuredContent).toMatchObject({ status: 'pass' });
  });

  it('answers a call beyond the key’s limit with rate-limited and its retry time, and counts nothing for it', async () => {
    const t = await openApp();
    const small = await t.issue(1);
    const client = await connect(t, small.key);
    expect((await client.callTool({ name: 'get_sell_rates', arguments: {} })).isError).toBeFalsy();
    const refused = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'ETH' } });
    expect(refused.isError).toBe(true);
    const [sentence, problem] = textOf(refused);
    expect(sentence).toBe(
      'nerkh refused the request: rate limit (rate-limited). Retry after 60 seconds (at 2025-01-01T12:02:00.000Z), not sooner.',
    );
    expect(JSON.parse(problem as string)).toMatchObject({
      code: 'rate-limited',
      status: 429,
      retry_after: 60,
      'violated-policies': ['default'],
    });
    // initialize and tools/list are not rates: they count nothing.
    await client.listTools();
    t.clock.advance(60_000);
    expect((await client.callTool({ name: 'get_sell_rates', arguments: {} })).isError).toBeFalsy();
  });

  it('names the symbols that are not listed, and refuses malformed arguments without asking the route', async () => {
    const t = await openApp();
    const client = await connect(t, t.key);
    const unknown = await client.callTool({
      name: 'get_sell_rates',
      arguments: { symbols: ['BTC', 'doge'] },
    });
    expect(textOf(unknown)[0]).toBe(
      'DOGE is not listed by nerkh. Call get_sell_rates without a symbol to see every listed currency.',
    );
    const malformed = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'BTC; drop' } });
    expect(malformed.isError).toBe(true);
    const route = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
    // Only the unknown-symbol call reached the route.
    expect(route.headers.ratelimit).toBe('"default";r=58;t=60');
  });

  it('writes the /mcp request and the route request it made to the access log, with one request id', async () => {
    const logs = new LogCapture();
    const t = await openApp({ logs, env: { LOG_LEVEL: 'info' } });
    const response = await post(
      t,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_sell_rates', arguments: {} } },
      { 'x-api-key': t.key, 'x-request-id': 'mcp-call-1' },
    );
    expect(response.statusCode).toBe(200);
    await t.app.close();
    const lines = logs.lines.map((line) => JSON.parse(line)).filter((line) => line.req_id === 'mcp-call-1');
    expect(lines.map((line) => [line.method, line.url, line.status])).toEqual(
      expect.arrayContaining([
        ['GET', '/v1/rates', 200],
        ['POST', '/mcp', 200],
      ]),
    );
  });
});

describe('/mcp refusals', () => {
  it('answers GET and DELETE with 405 and Allow: POST: it keeps no sessions or streams', async () => {
    const t = await openApp();
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream' } });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.json()).toMatchObject({ code: 'method-not-allowed' });
    }
  });

  it('refuses a browser request from another origin with 403, and accepts its own origin', async () => {
    const t = await openApp();
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const foreign = await post(t, initialize, { origin: 'http://evil.example.com' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'origin-not-allowed' });
    expect((await post(t, initialize, { origin: publicUrl })).statusCode).toBe(200);
  });

  it(`refuses a body over ${mcpBodyLimit} bytes with 413, another media type with 415, broken JSON with a JSON-RPC parse error`, async () => {
    const t = await openApp();
    const large = await post(t, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(mcpBodyLimit) },
    });
    expect(large.statusCode).toBe(413);
    expect(large.json()).toMatchObject({ code: 'payload-too-large' });
    const form = await post(t, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.statusCode).toBe(415);
    const broken = await post(t, '{"jsonrpc":');
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });
});
