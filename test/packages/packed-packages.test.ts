import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/test-app.ts';

/**
 * What a user of `@nerkh/client` and `@nerkh/mcp` gets: both packed with `npm pack` (their
 * `prepack` builds them), installed from the tarballs into an empty project outside the
 * repository, and used there against a running nerkh. Nothing is published. The packages'
 * dependencies come from npm's cache (`--prefer-offline`: the registry is asked only for what the
 * cache lacks).
 */
const run = promisify(execFile);
const rootDir = join(import.meta.dirname, '..', '..');
const tsc = join(rootDir, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * npm run by `npm test` passes its own settings down (`npm_config_local_prefix` names this
 * repository, which would make an npm started in the clean project act on the repository).
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^npm_(package_|lifecycle_|command$|config_(local_prefix|call|workspaces?|include_workspace_root)$)/.test(
        name,
      )
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

interface PackedFile {
  name: string;
  filename: string;
  files: { path: string }[];
}

let scratch: string;
let project: string;
let packed: PackedFile[];
let nerkh: TestApp;
let baseUrl: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'nerkh-packed-'));
  nerkh = await buildTestApp();
  await nerkh.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(nerkh.app.server.address() as AddressInfo).port}`;

  const pack = await run(
    'npm',
    [
      'pack',
      '--json',
      '--pack-destination',
      scratch,
      '--workspace',
      '@nerkh/client',
      '--workspace',
      '@nerkh/mcp',
    ],
    { cwd: rootDir, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 },
  );
  packed = JSON.parse(pack.stdout) as PackedFile[];

  project = join(scratch, 'clean-project');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    '{ "name": "clean-project", "private": true, "type": "module" }\n',
  );
  const tarballs = packed.map((file) => join(scratch, file.filename));
  const install = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs],
    { cwd: project, env: cleanEnv() },
  );
  process.stdout.write(
    `clean project ${project}: npm install ${packed.map((file) => file.filename).join(' ')}\n`,
  );
  process.stdout.write(install.stdout);
}, 240_000);

afterAll(async () => {
  await nerkh?.app.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function tarball(name: string): PackedFile {
  const file = packed.find((candidate) => candidate.name === name);
  if (!file) throw new Error(`npm pack made no tarball for ${name}`);
  return file;
}

/** Every file an `exports` map can resolve to, whatever the conditions. */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports && typeof exports === 'object') return Object.values(exports).flatMap(exportTargets);
  return [];
}

describe('the packed packages', () => {
  it.each(['@nerkh/client', '@nerkh/mcp'])(
    '%s holds its licence and built files only, and every export and bin is in the tarball',
    async (name) => {
      const files = tarball(name).files.map((file) => file.path);
      expect(files).toContain('LICENSE');
      expect(
        files.filter((path) => !/^(LICENSE|README\.md|package\.json|dist\/.+\.(js|d\.ts|json))$/.test(path)),
      ).toEqual([]);
      const manifest = JSON.parse(
        await readFile(join(project, 'node_modules', ...name.split('/'), 'package.json'), 'utf8'),
      );
      expect(manifest).toMatchObject({
        license: 'MIT',
        repository: { type: 'git', directory: `packages/${name.split('/')[1]}` },
        publishConfig: { access: 'public' },
        scripts: { prepack: 'npm run build' },
      });
      const targets = [...exportTargets(manifest.exports), ...Object.values(manifest.bin ?? {})] as string[];
      for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ''));
      expect(await readFile(join(project, 'node_modules', ...name.split('/'), 'LICENSE'), 'utf8')).toBe(
        await readFile(join(rootDir, 'LICENSE'), 'utf8'),
      );
    },
  );

  it("the site's /clients page (both languages) installs them as this test does, by their tarballs' names", async () => {
    const [client, mcp] = [tarball('@nerkh/client').filename, tarball('@nerkh/mcp').filename];
    for (const page of ['clients.md', 'fa/clients.md']) {
      const text = await readFile(join(rootDir, 'content', page), 'utf8');
      expect(text).toContain('npm pack -w @nerkh/client -w @nerkh/mcp --pack-destination ~/nerkh-packages\n');
      expect(text).toContain(`npm install ~/nerkh-packages/${client}\n`);
      expect(text).toContain(`npm install -g ~/nerkh-packages/${client} ~/nerkh-packages/${mcp}\n`);
      expect(text).not.toMatch(/npx -y @nerkh\/mcp|^npm install @nerkh\/client/m);
    }
  });

  // tsc checks a whole project from a cold start: seconds on an idle machine, far more under load.
  it('the client type-checks under tsc --strict in the clean project, and its call answers', {
    timeout: 60_000,
  }, async () => {
    await writeFile(
      join(project, 'tsconfig.json'),
      `${JSON.stringify(
        {
          compilerOptions: {
            strict: true,
            target: 'ES2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            lib: ['ES2023', 'DOM'],
            types: [],
            outDir: 'out',
          },
          files: ['use-client.ts'],
        },
        null,
        2,
      )}\n`,
    );
    await writeFile(
      join(project, 'use-client.ts'),
      `import { isStale, NerkhClient, NerkhProblemError, type RateRow } from '@nerkh/client';

declare const process: { argv: string[] };
const [baseUrl, apiKey] = process.argv.slice(2);
if (!baseUrl || !apiKey) throw new Error('usage: use-client.js BASE_URL API_KEY');

const nerkh = new NerkhClient({ baseUrl, apiKey });
const { data } = await nerkh.getRates({ symbol: 'BTC' });
const row: RateRow | undefined = data.rates[0];
const toman: number | null = row ? row.sell_irt : null;
// @ts-expect-error sell_irt is a number or null, never a string: the types are the API's own
const wrong: string = data.rates[0]?.sell_irt;
void wrong;
try {
  await new NerkhClient({ baseUrl, apiKey: 'nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa' }).getRates();
} catch (error) {
  if (!(error instanceof NerkhProblemError)) throw error;
  console.log(JSON.stringify({ symbol: row?.symbol, toman, stale: row ? isStale(row, 3600) : null, refused: error.code }));
}
`,
    );
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: { stdout: string }) => {
        throw new Error(`tsc --strict failed in the clean project:\n${error.stdout}`);
      },
    );
    expect(compiled.stdout).toBe('');
    const used = await run(process.execPath, ['out/use-client.js', baseUrl, nerkh.key], { cwd: project });
    process.stdout.write(`clean project: tsc --strict passed; node out/use-client.js → ${used.stdout}`);
    expect(JSON.parse(used.stdout)).toEqual({
      symbol: 'BTC',
      toman: expect.any(Number),
      stale: expect.any(Boolean),
      refused: 'invalid-api-key',
    });
  });

  it('the MCP server starts with npx from its tarball and lists its tools over stdio', async () => {
    await writeFile(
      join(project, 'list-tools.mjs'),
      `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [baseUrl, apiKey] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: 'npx',
  args: ['--no', 'nerkh-mcp'],
  env: { PATH: process.env.PATH, HOME: process.env.HOME, NERKH_BASE_URL: baseUrl, NERKH_API_KEY: apiKey },
  stderr: 'inherit',
});
const client = new Client({ name: 'clean-project', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const called = await client.callTool({ name: 'get_sell_rates', arguments: { symbol: 'BTC' } });
await client.close();
console.log(JSON.stringify({
  server: client.getServerVersion(),
  tools: tools.map((tool) => tool.name),
  rates: called.structuredContent.rates.map((row) => row.symbol),
}));
`,
    );
    const listed = await run(process.execPath, ['list-tools.mjs', baseUrl, nerkh.key], {
      cwd: project,
      env: cleanEnv(),
      timeout: 60_000,
    });
    process.stdout.write(`clean project: node list-tools.mjs (npx --no nerkh-mcp) → ${listed.stdout}`);
    expect(JSON.parse(listed.stdout)).toEqual({
      server: expect.objectContaining({ name: expect.any(String) }),
      tools: ['get_sell_rates', 'get_service_health'],
      rates: ['BTC'],
    });
  });
});
