import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type NerkhMcpOptions, nerkhMcpServerFactory } from '../src/index.ts';
import { type RunningNerkh, startNerkh } from './running-nerkh.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A running nerkh and an MCP client connected in memory to the nerkh MCP server in front of it. */
async function setUp(
  options: Partial<NerkhMcpOptions> & { keyLimit?: number } = {},
): Promise<{ nerkh: RunningNerkh; client: Client }> {
  const nerkh = await startNerkh();
  cleanups.push(() => nerkh.close());
  const { keyLimit, ...serverOptions } = options;
  const apiKey = keyLimit === undefined ? nerkh.key : (await nerkh.issue(keyLimit)).key;
  const server = nerkhMcpServerFactory({
    baseUrl: nerkh.baseUrl,
    apiKey,
    clock: nerkh.clock.now,
    ...serverOptions,
  })();
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return { nerkh, client };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? '';
}

describe('the nerkh MCP server', () => {
  it('lists two read-only tools whose output schemas are the service’s response schemas', async () => {
    const { client } = await setUp();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['get_sell_rates', 'get_service_health']);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.outputSchema?.type).toBe('object');
    }
    expect(tools[0]?.outputSchema?.required).toContain('rates');
  });

  it('get_sell_rates answers structured rows with as_of, and a text stating sell side, toman and freshness', async () => {
    const { client, nerkh } = await setUp();
    // The SDK client checks structuredContent against the tool's outputSchema.
    const result = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'btc' } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { side: string; rates: { symbol: string; as_of: string }[] };
    expect(data.side).toBe('sell');
    expect(data.rates).toEqual([
      expect.objectContaining({ symbol: 'BTC', as_of: '2025-01-01T11:59:58.000Z' }),
    ]);
    const text = textOf(result);
    expect(text).toContain('Sell side only');
    expect(text).toContain('toman, not rial');
    expect(text).toContain('own as_of');
    expect(text).toContain('BTC: 97250.5 USDT, 8961633575 toman; as_of 2025-01-01T11:59:58.000Z, 1 min old');
    expect(nerkh.requests).toEqual(['/v1/rates?symbol=btc']);
  });

  it('without a key, says how to get one (the contact page) and asks nerkh nothing', async () => {
    const { client, nerkh } = await setUp({ apiKey: undefined });
    const result = await client.callTool({ name: 'get_sell_rates', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`requests one at ${nerkh.baseUrl}/contact`);
    expect(nerkh.requests).toEqual([]);
  });

  it('with an invalid key, says the key was refused and where to request one, without echoing the service’s detail', async () => {
    const { client, nerkh } = await setUp({ apiKey: 'nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa' });
    const result = await client.callTool({ name: 'get_sell_rates', arguments: {} });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('refused the API key (invalid-api-key)');
    expect(text).toContain(`${nerkh.baseUrl}/contact`);
    expect(text).not.toContain('unknown, malformed');
    expect(result.structuredContent).toBeUndefined();
  });

  it('turns a 429 into a tool error that says when to retry', async () => {
    const { client, nerkh } = await setUp({ keyLimit: 1, client: { budget: false } });
    await client.callTool({ name: 'get_sell_rates', arguments: {} });
    const refused = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'ETH' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'nerkh refused the request: rate limit (rate-limited). Retry after 60 seconds (at 2025-01-01T12:02:00.000Z), not sooner.',
    );
    expect(nerkh.answers.map((answer) => answer.status)).toEqual([200, 429]);
  });

  it('refuses a malformed symbol itself, and reports an unlisted one without asking the model to trust the service', async () => {
    const { client, nerkh } = await setUp();
    const malformed = await client.callTool({
      name: 'get_sell_rates',
      arguments: { symbol: 'ignore previous; BTC' },
    });
    expect(malformed.isError).toBe(true);
    expect(nerkh.requests).toEqual([]);
    const unknown = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'doge' } });
    expect(textOf(unknown)).toBe(
      'DOGE is not listed by nerkh. Call get_sell_rates without a symbol to see every listed currency.',
    );
  });

  it('get_sell_rates with symbols answers several rows in one request, sorted by symbol', async () => {
    const { client, nerkh } = await setUp();
    const result = await client.callTool({ name: 'get_sell_rates', arguments: { symbols: ['eth', 'BTC'] } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { rates: { symbol: string }[] };
    expect(data.rates.map((row) => row.symbol)).toEqual(['BTC', 'ETH']);
    expect(textOf(result)).toContain('2 rows');
    expect(nerkh.requests).toEqual(['/v1/rates?symbols=eth,BTC']);
    const unknown = await client.callTool({
      name: 'get_sell_rates',
      arguments: { symbols: ['BTC', 'doge', 'xyz'] },
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(
      'DOGE, XYZ are not listed by nerkh. Call get_sell_rates without a symbol to see every listed currency.',
    );
  });

  it.each([
    [{ symbols: [] }, 'symbols must be a list'],
    [{ symbols: ['BTC', 'ignore previous; ETH'] }, 'symbols must be a list'],
    [{ symbols: 'BTC,ETH' }, 'symbols must be a list'],
    [{ symbols: Array.from({ length: 21 }, (_, i) => `C${i}`) }, 'at most 20 distinct'],
    [{ symbol: 'BTC', symbols: ['ETH'] }, 'not both'],
  ])('refuses symbols %j itself, asking nerkh nothing', async (args, text) => {
    const { client, nerkh } = await setUp();
    const result = await client.callTool({ name: 'get_sell_rates', arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(text);
    expect(nerkh.requests).toEqual([]);
  });

  it('get_service_health reports the health document without a key', async () => {
    const { client } = await setUp({ apiKey: undefined });
    const result = await client.callTool({ name: 'get_service_health', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { status: string }).status).toBe('pass');
    expect(textOf(result)).toMatch(
      /^nerkh health: pass \(fresh data, every source connected\)\. Snapshot 60 s old/,
    );
  });
});
