import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../support/test-app.ts';

/**
 * The service's own `/mcp` over a real socket, driven by `@modelcontextprotocol/conformance`
 * (0.1.13, as packages/mcp/test/conformance.test.ts runs it) and by the MCP Inspector's CLI over
 * Streamable HTTP with the key in X-API-Key. The service's public URL is its loopback address
 * here, so the DNS-rebinding scenario's "own origin" request is accepted. Transcripts go to
 * test-artifacts/mcp/.
 */
const run = promisify(execFile);
const rootDir = join(import.meta.dirname, '..', '..', '..');
const modules = join(rootDir, 'node_modules', '@modelcontextprotocol');
const conformance = join(modules, 'conformance', 'dist', 'index.js');
const inspector = join(modules, 'inspector', 'clients', 'launcher', 'build', 'index.js');
const artifacts = join(rootDir, 'test-artifacts', 'mcp');
const scenarios = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const transcript: string[] = [];

/** A port free right now, so the public URL can name it before the app listens. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let t: TestApp;
let url: string;
let scratch: string;
beforeAll(async () => {
  const port = await freePort();
  t = await buildTestApp({ env: { NERKH_PUBLIC_URL: `http://127.0.0.1:${port}` } });
  await t.app.listen({ host: '127.0.0.1', port });
  url = `http://127.0.0.1:${port}/mcp`;
  scratch = await mkdtemp(join(tmpdir(), 'nerkh-mcp-'));
  await mkdir(artifacts, { recursive: true });
});
afterAll(async () => {
  await t?.app.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  await writeFile(join(artifacts, 'service-conformance.txt'), transcript.join('\n'));
});

const quiet = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };

describe('/mcp against the MCP conformance suite over HTTP', () => {
  it.each(scenarios)('passes the %s scenario', async (scenario) => {
    const { stdout, stderr } = await run(
      process.execPath,
      [conformance, 'server', '--url', url, '--scenario', scenario],
      { timeout: 60_000, env: quiet },
    );
    const output = stripVTControlCharacters(`${stdout}${stderr}`);
    transcript.push(`$ conformance server --url ${url} --scenario ${scenario}`, output);
    const result = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
    expect(result, output).not.toBeNull();
    expect(result?.[3], output).toBe('0');
    expect(Number(result?.[1])).toBeGreaterThan(0);
  });
});

/** The Inspector CLI against `/mcp`; exit 5 is its code for a tool error, which it still writes. */
async function inspect(name: string, args: string[], expectToolError = false): Promise<unknown> {
  const output = join(scratch, `${name}.json`);
  const command = [inspector, '--cli', url, '--transport', 'http', ...args, '--output', output];
  let log: string;
  try {
    const { stdout, stderr } = await run(process.execPath, command, {
      env: { ...quiet, MCP_CATALOG_PATH: join(scratch, 'mcp.json') },
      timeout: 60_000,
    });
    expect(expectToolError, 'the tool answered without isError').toBe(false);
    log = `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (!expectToolError || failed.code !== 5) throw error;
    log = `${failed.stdout ?? ''}${failed.stderr ?? ''}(exit 5: tool error)\n`;
  }
  const result = await readFile(output, 'utf8');
  const shown = command.slice(1, -2).join(' ').replaceAll(t.key, '<key>');
  await writeFile(
    join(artifacts, `service-inspector-${name}.txt`),
    `$ inspector ${shown}\n${log}${result}\n`,
  );
  return JSON.parse(result);
}

describe('/mcp through the MCP Inspector CLI over Streamable HTTP', () => {
  it('tools/list shows both tools, read-only', async () => {
    const listed = (await inspect('tools-list', ['--method', 'tools/list'])) as {
      tools: { name: string; annotations: { readOnlyHint: boolean } }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['get_sell_rates', 'get_service_health']);
    expect(listed.tools.every((tool) => tool.annotations.readOnlyHint)).toBe(true);
  });

  it('tools/call get_sell_rates symbol=BTC with the key answers the BTC row', async () => {
    const called = (await inspect('get-sell-rates-btc', [
      '--header',
      `X-API-Key: ${t.key}`,
      '--method',
      'tools/call',
      '--tool-name',
      'get_sell_rates',
      '--tool-arg',
      'symbol=BTC',
    ])) as { structuredContent: { rates: { symbol: string }[] } };
    expect(called.structuredContent.rates.map((row) => row.symbol)).toEqual(['BTC']);
  });

  it('tools/call without a key is a tool error with missing-api-key', async () => {
    const refused = (await inspect(
      'get-sell-rates-no-key',
      ['--method', 'tools/call', '--tool-name', 'get_sell_rates'],
      true,
    )) as { isError: boolean; content: { text: string }[] };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toContain('missing-api-key');
  });
});
