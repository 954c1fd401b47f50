import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { NerkhClient, type NerkhClientOptions } from '@nerkh/client';
import { healthOutputSchema, maxSymbols, ratesOutputSchema, symbolPattern } from './contract-schemas.ts';
import { errorReply, healthReply, missingKeyReply, ratesReply } from './tool-replies.ts';

export interface NerkhMcpOptions {
  /** The nerkh service: `https://rates.example` (or its `/v1`). */
  baseUrl: string;
  /** NERKH_API_KEY; without it get_sell_rates answers how to get one. */
  apiKey?: string;
  /** Passed to the client (tests inject fetch, clock, retry). */
  client?: Partial<NerkhClientOptions>;
  clock?: () => number;
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export const tools: Tool[] = [
  {
    name: 'get_sell_rates',
    title: 'nerkh sell rates',
    description:
      'Current sell (ask) rates of digital currencies from nerkh: what a user pays to buy each coin from the exchange, in tether (USDT) and in toman (not rial). Give symbol (e.g. BTC) for one currency, symbols (e.g. ["BTC","ETH"], at most 20) for several in one request, or neither for all. Each row has its own as_of: judge freshness by it, not by updated_at. There is no buy side.',
    inputSchema: {
      type: 'object',
      properties: {
        symbol: {
          type: 'string',
          pattern: symbolPattern,
          description: 'One currency ticker, 1 to 20 letters or digits, case-insensitive (btc = BTC)',
        },
        symbols: {
          type: 'array',
          items: { type: 'string', pattern: symbolPattern },
          minItems: 1,
          maxItems: maxSymbols,
          description: `Several tickers, each as for symbol, at most ${maxSymbols} distinct; rows come sorted by symbol. Not together with symbol`,
        },
      },
      additionalProperties: false,
    },
    outputSchema: ratesOutputSchema,
    annotations: { title: 'nerkh sell rates', ...readOnly },
  },
  {
    name: 'get_service_health',
    title: 'nerkh service health',
    description:
      'Freshness of the nerkh data and the state of its sources (pass, warn or fail). Check it before relying on rates; on fail do not use them. Needs no API key.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: healthOutputSchema,
    annotations: { title: 'nerkh service health', ...readOnly },
  },
];

/** Where a person asks for a key: the site's contact page, next to the API's `/v1`. */
export function contactUrlOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}/contact`;
}

/**
 * The `symbol` or `symbols` argument of get_sell_rates, checked here so a malformed one never
 * reaches the service; or the tool error's text. The service folds case and duplicates.
 */
export function symbolsArgument(
  args: Record<string, unknown>,
): { symbol?: string; symbols?: string[] } | string {
  const { symbol, symbols } = args;
  const shape = new RegExp(symbolPattern);
  const wellFormed = (value: unknown): value is string => typeof value === 'string' && shape.test(value);
  if (symbol !== undefined && symbols !== undefined) return 'Give symbol or symbols, not both.';
  if (symbol !== undefined) {
    return wellFormed(symbol)
      ? { symbol }
      : 'symbol must be 1 to 20 ASCII letters or digits, for example BTC.';
  }
  if (symbols === undefined) return {};
  if (!Array.isArray(symbols) || symbols.length === 0 || !symbols.every(wellFormed)) {
    return 'symbols must be a list of 1 to 20 ASCII letters or digits each, for example ["BTC","ETH"].';
  }
  if (new Set(symbols.map((item) => item.toUpperCase())).size > maxSymbols) {
    return `symbols may name at most ${maxSymbols} distinct currencies; omit it for all.`;
  }
  return { symbols };
}

/**
 * Builds MCP servers that share one client (and so its cache and rate-limit budget): stdio makes
 * one, Streamable HTTP one per request. The SDK's low-level Server keeps the output schemas the
 * service's own JSON Schemas.
 */
export function nerkhMcpServerFactory(options: NerkhMcpOptions): () => Server {
  const clock = options.clock ?? Date.now;
  const contactUrl = contactUrlOf(options.baseUrl);
  const client = new NerkhClient({
    baseUrl: options.baseUrl,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    retry: false,
    clock,
    ...options.client,
  });
  return () => {
    const server = new Server(
      { name: 'nerkh', title: 'nerkh rates', version: '0.1.0' },
      {
        capabilities: { tools: {} },
        instructions:
          'nerkh publishes sell rates only, in tether and toman (not rial). Judge each rate by its as_of. Call get_service_health before relying on rates.',
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      switch (request.params.name) {
        case 'get_sell_rates': {
          const asked = symbolsArgument(args);
          if (typeof asked === 'string') return { isError: true, content: [{ type: 'text', text: asked }] };
          if (!options.apiKey) return missingKeyReply(contactUrl);
          try {
            const result = await client.getRates({ ...asked, signal: extra.signal });
            return ratesReply(result.data, clock());
          } catch (error) {
            return errorReply(error, { contactUrl, nowMs: clock(), ...asked });
          }
        }
        case 'get_service_health':
          try {
            return healthReply((await client.getHealth({ signal: extra.signal })).data);
          } catch (error) {
            return errorReply(error, { contactUrl, nowMs: clock() });
          }
        default:
          throw new McpError(
            ErrorCode.InvalidParams,
            'Unknown tool; the tools are get_sell_rates and get_service_health.',
          );
      }
    });
    return server;
  };
}
