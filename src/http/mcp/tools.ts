import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { RatesResponseSchema } from '../../domain/rates.ts';
import { HealthSchema } from '../../web/health-report.ts';
import { maxSymbols, symbolPattern } from '../rates/symbols-query.ts';

/**
 * The tools `/mcp` offers (content/docs.md "MCP"): the two data endpoints' operations, named and
 * described as the packaged server `@nerkh/mcp` names them (packages/mcp/src/nerkh-mcp-server.ts;
 * a test holds the two to the same names, descriptions, inputs and annotations), so an agent meets
 * one set of tools however it reaches nerkh. Their output schemas are the routes' own response
 * schemas, as JSON Schema.
 */

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** A TypeBox schema as the plain JSON Schema object MCP's `outputSchema` is (its symbols dropped). */
function jsonSchema(schema: object): Tool['outputSchema'] {
  return JSON.parse(JSON.stringify(schema)) as Tool['outputSchema'];
}

export const ratesToolName = 'get_sell_rates';
export const healthToolName = 'get_service_health';

export const mcpTools: Tool[] = [
  {
    name: ratesToolName,
    title: 'nerkh sell rates',
    description:
      'Current sell (ask) rates of digital currencies from nerkh: what a user pays to buy each coin from the exchange, in tether (USDT) and in toman (not rial). Give symbol (e.g. BTC) for one currency, symbols (e.g. ["BTC","ETH"], at most 20) for several in one request, or neither for all. Each row has its own as_of: judge freshness by it, not by updated_at. Each row names its source, the exchange that priced it, and tether_source when a price was converted through usdt_irt. There is no buy side.',
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
    outputSchema: jsonSchema(RatesResponseSchema),
    annotations: { title: 'nerkh sell rates', ...readOnly },
  },
  {
    name: healthToolName,
    title: 'nerkh service health',
    description:
      'Freshness of the nerkh data and the state of its sources (pass, warn or fail). Check it before relying on rates; on fail do not use them. Needs no API key.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: jsonSchema(HealthSchema),
    annotations: { title: 'nerkh service health', ...readOnly },
  },
];
