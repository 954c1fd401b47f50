import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpEndpoint, nerkhMcpServerFactory, serveHttp } from '../src/index.ts';
import { type RunningNerkh, startNerkh } from './running-nerkh.ts';

/**
 * `@modelcontextprotocol/conformance` against the server over Streamable HTTP, in front of a
 * running nerkh. Only the scenarios that apply to a server with tools and no sessions run: the
 * rest test the conformance suite's own fixture tools (test_simple_text, …), resources, prompts,
 * logging, completion, sampling or elicitation, which this server does not offer.
 * 0.1.13 is the newest release that runs on Node 20 (0.1.14+ import `globSync` from node:fs).
 */
const run = promisify(execFile);
const rootDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const conformance = join(rootDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const scenarios = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const transcript: string[] = [];

let nerkh: RunningNerkh;
let endpoint: HttpEndpoint;
beforeAll(async () => {
  nerkh = await startNerkh();
  endpoint = await serveHttp(nerkhMcpServerFactory({ baseUrl: nerkh.baseUrl, apiKey: nerkh.key }));
});
afterAll(async () => {
  await endpoint?.close();
  await nerkh?.close();
  await mkdir(join(rootDir, 'test-artifacts', 'mcp'), { recursive: true });
  await writeFile(join(rootDir, 'test-artifacts', 'mcp', 'conformance.txt'), transcript.join('\n'));
});

describe('MCP conformance over Streamable HTTP', () => {
  it('listens on a loopback address only', () => {
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it.each(scenarios)('passes the %s scenario', async (scenario) => {
    const { stdout, stderr } = await run(
      process.execPath,
      [conformance, 'server', '--url', endpoint.url, '--scenario', scenario],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    const output = stripVTControlCharacters(`${stdout}${stderr}`);
    transcript.push(`$ conformance server --url ${endpoint.url} --scenario ${scenario}`, output);
    const result = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
    expect(result, output).not.toBeNull();
    expect(result?.[3], output).toBe('0');
    expect(Number(result?.[1])).toBeGreaterThan(0);
  });

  it('answers GET and DELETE on /mcp with 405: it keeps no sessions or streams', async () => {
    const response = await fetch(endpoint.url);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
