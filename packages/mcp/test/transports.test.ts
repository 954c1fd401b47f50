import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { nerkhMcpServerFactory, serveHttp } from '../src/index.ts';
import { startNerkh } from './running-nerkh.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

describe('Streamable HTTP', () => {
  it('answers a tool call, and its requests share one client: the second call is served from its cache', async () => {
    const nerkh = await startNerkh();
    cleanups.push(() => nerkh.close());
    const endpoint = await serveHttp(
      nerkhMcpServerFactory({ baseUrl: nerkh.baseUrl, apiKey: nerkh.key, clock: nerkh.clock.now }),
    );
    cleanups.push(() => endpoint.close());
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
    cleanups.push(() => client.close());
    for (let call = 0; call < 2; call += 1) {
      const result = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'ETH' } });
      expect((result.structuredContent as { rates: { symbol: string }[] }).rates[0]?.symbol).toBe('ETH');
    }
    expect(nerkh.requests).toEqual(['/v1/rates?symbol=ETH']);
  });
});
