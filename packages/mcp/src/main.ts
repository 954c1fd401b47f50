#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { nerkhMcpServerFactory } from './nerkh-mcp-server.ts';
import { serveHttp, serveStdio } from './transports.ts';

const help = `nerkh-mcp: an MCP server for the nerkh rates API (tools get_sell_rates, get_service_health)

Usage:
  nerkh-mcp                  serve over stdio (how MCP hosts start local servers)
  nerkh-mcp --http [--port N] [--host 127.0.0.1|localhost|::1]
                             serve Streamable HTTP at http://127.0.0.1:N/mcp (loopback only)

Environment:
  NERKH_BASE_URL   the nerkh service, e.g. https://rates.example (required)
  NERKH_API_KEY    your key, sent only in X-API-Key; request one on the service's /contact page
  NERKH_TIMEOUT_MS per-request timeout (default 10000)
`;

function fail(message: string): never {
  process.stderr.write(`nerkh-mcp: ${message}\n\n${help}`);
  process.exit(2);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        http: { type: 'boolean', default: false },
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();

if (values.help) {
  process.stdout.write(help);
  process.exit(0);
}
const baseUrl = process.env.NERKH_BASE_URL;
if (!baseUrl) fail('NERKH_BASE_URL is not set');
const timeoutMs = Number(process.env.NERKH_TIMEOUT_MS ?? 10_000);
if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) fail('NERKH_TIMEOUT_MS must be a positive integer');
const host = values.host;
if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1')
  fail('--host must be 127.0.0.1, localhost or ::1');
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail('--port must be an integer from 0 to 65535');

let createServer: ReturnType<typeof nerkhMcpServerFactory>;
try {
  createServer = nerkhMcpServerFactory({
    baseUrl,
    ...(process.env.NERKH_API_KEY ? { apiKey: process.env.NERKH_API_KEY } : {}),
    client: { timeoutMs },
  });
} catch (error) {
  fail((error as Error).message);
}

if (values.http) {
  const endpoint = await serveHttp(createServer, { host, port });
  // stderr: stdout is kept clean in both modes.
  process.stderr.write(`nerkh-mcp: Streamable HTTP at ${endpoint.url}\n`);
  const stop = () => void endpoint.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  await serveStdio(createServer);
}
