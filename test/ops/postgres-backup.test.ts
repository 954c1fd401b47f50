import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { NerkhProcess } from '../../drills/support/nerkh-process.ts';
import { loadConfig } from '../../src/config.ts';
import { projectRoot } from '../../src/project-root.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createTestDatabase, skipPostgres } from '../support/postgres.ts';
import { runCli } from '../support/run-cli.ts';
import { sampleSnapshot } from '../support/test-app.ts';

const execFileAsync = promisify(execFile);

/** The PostgreSQL backup and restore lines of docs/operations.md#backups, as written there. */
function documentedCommands(): { dump: string; restore: string } {
  const operations = readFileSync(join(projectRoot, 'docs', 'operations.md'), 'utf8');
  const section = operations.slice(operations.indexOf('\n## Backups\n'), operations.indexOf('\n## Drills\n'));
  const line = (tool: string) => {
    const lines = section.split('\n').filter((candidate) => candidate.startsWith(`${tool} `));
    expect(lines, `one ${tool} line in docs/operations.md#backups`).toHaveLength(1);
    return lines[0] as string;
  };
  return { dump: line('pg_dump'), restore: line('pg_restore') };
}

/** Runs a documented line in a shell, as an operator pastes it, with NERKH_DATABASE_URL set. */
async function runDocumented(line: string, cwd: string, databaseUrl: string): Promise<void> {
  process.stdout.write(`$ ${line}\n`);
  const { stdout, stderr } = await execFileAsync('sh', ['-c', line], {
    cwd,
    env: { ...process.env, NERKH_DATABASE_URL: databaseUrl },
    timeout: 60_000,
  });
  process.stdout.write(stdout + stderr);
}

const ratesStatus = (url: string, key: string) =>
  fetch(`${url}/v1/rates`, { headers: { 'X-API-Key': key } }).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  });

describe.skipIf(skipPostgres)('PostgreSQL backups, as docs/operations.md#backups shows them', () => {
  it('pg_dump while nerkh serves, pg_restore into an empty database: the key issued before works there', {
    timeout: 90_000,
  }, async () => {
    const { dump, restore } = documentedCommands();
    const workDir = mkdtempSync(join(tmpdir(), 'nerkh-pg-backup-'));
    onTestFinished(() => rmSync(workDir, { recursive: true, force: true }));
    const source = await createTestDatabase();
    const target = await createTestDatabase();

    // The source: migrated, with a snapshot to serve and a key issued through the command line.
    const store = await openStore(loadConfig({ NERKH_DATABASE_URL: source, LOG_LEVEL: 'silent' }));
    await store.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
    await store.close();
    const issued = await runCli(
      ['keys', 'issue', '--org', 'Before the dump', '--purpose', 'pg backup', '--json'],
      {
        NERKH_DATABASE_URL: source,
      },
    );
    expect(issued).toMatchObject({ code: 0, stderr: '' });
    const key = (JSON.parse(issued.stdout) as { key: string }).key;

    const serving = await NerkhProcess.start({ role: 'api', env: { NERKH_DATABASE_URL: source } });
    onTestFinished(async () => {
      await serving.stop();
    });
    expect(await ratesStatus(serving.url, key)).toBe(200);
    await runDocumented(dump, workDir, source);
    expect(await serving.stop()).toBe(0);

    await runDocumented(restore, workDir, target);
    const restored = await NerkhProcess.start({ role: 'api', env: { NERKH_DATABASE_URL: target } });
    onTestFinished(async () => {
      await restored.stop();
    });
    expect(await ratesStatus(restored.url, key)).toBe(200);
    const altered = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
    expect(await ratesStatus(restored.url, altered)).toBe(403);
    const listed = await runCli(['keys', 'list', '--json'], { NERKH_DATABASE_URL: target });
    expect(JSON.parse(listed.stdout).keys).toEqual([
      expect.objectContaining({ org: 'Before the dump', status: 'active' }),
    ]);
    expect(await restored.stop()).toBe(0);
  });
});
