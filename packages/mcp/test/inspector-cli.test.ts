import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningNerkh, startNerkh } from './running-nerkh.ts';

/**
 * `@modelcontextprotocol/inspector`'s CLI drives the nerkh MCP server as a host would: it starts
 * `src/main.ts` over stdio with the key and base URL in its environment. The transcripts are
 * kept in test-artifacts/mcp/ (not committed).
 */
const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const rootDir = join(packageDir, '..', '..');
const inspector = join(
  rootDir,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
const artifacts = join(rootDir, 'test-artifacts', 'mcp');

let nerkh: RunningNerkh;
let scratch: string;
beforeAll(async () => {
  nerkh = await startNerkh();
  scratch = await mkdtemp(join(tmpdir(), 'nerkh-inspector-'));
  await mkdir(artifacts, { recursive: true });
});
afterAll(async () => {
  await nerkh?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * Runs the Inspector CLI; the result goes to a file (`--output`), which the CLI also writes when
 * the tool answers isError (then it exits 5, its code for a tool error).
 */
async function inspect(name: string, key: string, args: string[], expectToolError = false): Promise<unknown> {
  const output = join(scratch, `${name}.json`);
  const command = [
    inspector,
    '--cli',
    '-e',
    `NERKH_BASE_URL=${nerkh.baseUrl}`,
    '-e',
    `NERKH_API_KEY=${key}`,
    // tsx resolves @nerkh/client to its sources through this tsconfig's `paths` (no build needed).
    '-e',
    `TSX_TSCONFIG_PATH=${join(packageDir, 'tsconfig.json')}`,
    '--cwd',
    rootDir,
    ...args,
    '--output',
    output,
    '--',
    process.execPath,
    '--import',
    'tsx',
    join(packageDir, 'src', 'main.ts'),
  ];
  const options = { env: { ...process.env, MCP_CATALOG_PATH: join(scratch, 'mcp.json') }, timeout: 60_000 };
  let log: string;
  try {
    const { stdout, stderr } = await run(process.execPath, command, options);
    expect(expectToolError, 'the tool answered without isError').toBe(false);
    log = `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (!expectToolError || failed.code !== 5) throw error;
    log = `${failed.stdout ?? ''}${failed.stderr ?? ''}(exit 5: tool error)\n`;
  }
  const result = await readFile(output, 'utf8');
  await writeFile(
    join(artifacts, `inspector-${name}.txt`),
    `$ inspector --cli -e NERKH_BASE_URL=${nerkh.baseUrl} -e NERKH_API_KEY=… ${args.join(' ')} -- node src/main.ts\n${log}${result}\n`,
  );
  return JSON.parse(result);
}

describe('the MCP server over stdio, through the MCP Inspector CLI', () => {
  it('tools/list shows both tools, read-only, with output schemas', async () => {
    const listed = (await inspect('tools-list', nerkh.key, ['--method', 'tools/list', '--strict'])) as {
      tools: { name: string; annotations: { readOnlyHint: boolean }; outputSchema: unknown }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['get_sell_rates', 'get_service_health']);
    expect(listed.tools.every((tool) => tool.annotations.readOnlyHint && tool.outputSchema)).toBe(true);
  });

  it('tools/call get_sell_rates symbol=BTC answers the BTC row with its as_of', async () => {
    const called = (await inspect('get-sell-rates-btc', nerkh.key, [
      '--method',
      'tools/call',
      '--tool-name',
      'get_sell_rates',
      '--tool-arg',
      'symbol=BTC',
    ])) as { structuredContent: { rates: { symbol: string; as_of: string }[] }; content: { text: string }[] };
    expect(called.structuredContent.rates).toEqual([
      expect.objectContaining({ symbol: 'BTC', as_of: '2025-01-01T11:59:58.000Z' }),
    ]);
    expect(called.content[0]?.text).toContain('toman, not rial');
  });

  it('an invalid key gives a tool error naming the contact page', async () => {
    const called = (await inspect(
      'invalid-key',
      'nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa',
      ['--method', 'tools/call', '--tool-name', 'get_sell_rates', '--tool-arg', 'symbol=BTC'],
      true,
    )) as { isError: boolean; content: { text: string }[] };
    expect(called.isError).toBe(true);
    expect(called.content[0]?.text).toContain(`${nerkh.baseUrl}/contact`);
  });
});
