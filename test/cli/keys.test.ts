import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { appStoresOf, wireApi } from '../../src/api-wiring.ts';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { memoryLimiters } from '../../src/limiter/open-limiter.ts';
import { createLogger } from '../../src/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import { runCli } from '../support/run-cli.ts';
import { sampleSnapshot } from '../support/test-app.ts';

let dataDir: string;
// The cleanup removes the directory its own setup made: concurrent tests below share `dataDir`.
beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-cli-keys-'));
  dataDir = dir;
  return () => rmSync(dir, { recursive: true, force: true });
});

const keys = (...args: string[]) => runCli(['keys', ...args], { NERKH_DATA_DIR: dataDir });

describe('nerkh keys', () => {
  it('issues a key once (--json: id and key), lists it by prefix only, and revokes it', async () => {
    const issued = await keys(
      'issue',
      '--org',
      'Acme Ltd',
      '--purpose',
      'price board',
      '--contact',
      'ops@acme.test',
      '--limit',
      '120',
      '--json',
    );
    expect(issued.code).toBe(0);
    expect(issued.stdout.trim().split('\n')).toHaveLength(1);
    const key = JSON.parse(issued.stdout);
    expect(key).toMatchObject({
      id: expect.stringMatching(/^key_[0-9a-f]{12}$/),
      key: expect.stringMatching(/^nerkh_[0-9A-Za-z]{22}_[0-9A-Za-z]{6}$/),
      org: 'Acme Ltd',
      purpose: 'price board',
      contact: 'ops@acme.test',
      rate_limit: 120,
      status: 'active',
    });
    expect(key.prefix).toBe(key.key.slice(0, 12));
    expect(key).not.toHaveProperty('hash');

    const [listJson, listText] = await Promise.all([keys('list', '--json'), keys('list')]);
    expect(listJson.code).toBe(0);
    const listed = JSON.parse(listJson.stdout);
    expect(listed.keys).toEqual([
      expect.objectContaining({ id: key.id, prefix: key.prefix, status: 'active' }),
    ]);
    expect(listed.keys[0]).not.toHaveProperty('hash');
    for (const output of [listJson.stdout, listText.stdout]) expect(output).not.toContain(key.key.slice(12));
    expect(listText.stdout).toContain(key.id);
    expect(listText.stdout).toContain('Acme Ltd');

    const revoked = await keys('revoke', key.id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${key.id}`);
    expect(JSON.parse((await keys('list', '--json')).stdout).keys[0].status).toBe('revoked');
  });

  it('prints the plain key on its own line in text mode', async () => {
    const issued = await keys('issue', '--org', 'Acme', '--purpose', 'p');
    expect(issued.code).toBe(0);
    expect(
      issued.stdout.split('\n').filter((line) => /^nerkh_[0-9A-Za-z]{22}_[0-9A-Za-z]{6}$/.test(line)),
    ).toHaveLength(1);
  });

  // Independent processes on their own directories: run side by side to keep the file fast.
  it.concurrent.each([
    [['issue', '--purpose', 'p'], /required option '--org/],
    [['issue', '--org', 'o', '--purpose', 'p', '--limit', 'abc'], /--limit/],
    [['issue', '--org', ' ', '--purpose', 'p'], /^nerkh: org must not be empty$/m],
    [['revoke', 'key_000000000000'], /^nerkh: no key has id "key_000000000000"/m],
  ])('exits non-zero with a one-line reason: keys %j', async (args, reason) => {
    const ownDir = mkdtempSync(join(tmpdir(), 'nerkh-cli-keys-'));
    try {
      const result = await runCli(['keys', ...args], { NERKH_DATA_DIR: ownDir });
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')[0]).toMatch(reason);
    } finally {
      rmSync(ownDir, { recursive: true, force: true });
    }
  });

  it('revokes while a server runs on the same data directory; the server refuses the key within 5 s', async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const store = await openStore(config);
    await store.snapshots.commitSnapshot(sampleSnapshot());
    const issued = JSON.parse((await keys('issue', '--org', 'A', '--purpose', 'p', '--json')).stdout);
    const limiters = memoryLimiters(config);
    const app = await wireApi({
      config,
      logger: createLogger('silent'),
      ...appStoresOf(store),
      limiters,
    });
    try {
      const get = () => app.inject({ url: '/v1/rates', headers: { 'x-api-key': issued.key } });
      expect((await get()).statusCode).toBe(200);
      expect((await keys('revoke', issued.id)).code).toBe(0);
      const revokedAt = Date.now();
      let status = (await get()).statusCode;
      while (status === 200 && Date.now() - revokedAt < 6000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await get()).statusCode;
      }
      expect(status).toBe(403);
      expect(Date.now() - revokedAt).toBeLessThan(5000);
    } finally {
      await app.close();
      await limiters.close();
      await store.close();
    }
  });

  it('prints organisation names inert: terminal escapes and bidi overrides are escaped, never sent raw', async () => {
    // An approved key request carries an organisation name typed on the contact page.
    const org = 'Evil\u001b[2J\u202eCorp';
    const issued = await keys('issue', '--org', org, '--purpose', 'board', '--json');
    expect(issued.code).toBe(0);
    const [listJson, listText] = await Promise.all([keys('list', '--json'), keys('list')]);
    for (const output of [issued.stdout, listJson.stdout, listText.stdout]) {
      expect(output).not.toContain('\u001b');
      expect(output).not.toContain('\u202e');
    }
    expect(listText.stdout).toContain('Evil\\u{1b}[2J\\u{202e}Corp');
    expect(JSON.parse(listJson.stdout).keys[0].org).toBe(org);
  });

  it('shows usage per key and day with totals (--json too), for one key or all, and refuses an unknown id or bad --days', {
    timeout: 30_000,
  }, async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
    let first: string;
    let second: string;
    try {
      first = (await issueApiKey(store.keys, { org: 'Acme', purpose: 'p' }, new Date(Date.now() - 1000)))
        .record.id;
      second = (await issueApiKey(store.keys, { org: 'Beta', purpose: 'p' })).record.id;
      // As a server's flush writes them.
      await store.keys.recordApiKeyUse(new Map(), [
        { keyId: first, day: day(0), admitted: 60, refused: 10 },
        { keyId: first, day: day(1), admitted: 5, refused: 0 },
        { keyId: first, day: day(10), admitted: 7, refused: 7 },
        { keyId: second, day: day(0), admitted: 1, refused: 0 },
      ]);
    } finally {
      await store.close();
    }

    const [all, one, unknown, refused] = await Promise.all([
      keys('usage'),
      keys('usage', first, '--days', '11', '--json'),
      keys('usage', 'key_000000000000'),
      keys('usage', '--days', '1.5'),
    ]);
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n').slice(1, -1)).toEqual([
      'ID                ORG   DAY         ADMITTED  REFUSED',
      `${first}  Acme  ${day(1)}  5         0`,
      `${first}  Acme  ${day(0)}  60        10`,
      `${first}  Acme  total       65        10`,
      `${second}  Beta  ${day(0)}  1         0`,
      `${second}  Beta  total       1         0`,
      'all keys                total       66        10',
    ]);
    expect(all.stdout.split('\n')[0]).toBe(
      `Requests per key in the last 7 UTC days (since ${day(6)}); running servers write their counts every 30 s.`,
    );

    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({
      since: day(10),
      days: 11,
      usage: [
        { key_id: first, org: 'Acme', day: day(10), admitted: 7, refused: 7 },
        { key_id: first, org: 'Acme', day: day(1), admitted: 5, refused: 0 },
        { key_id: first, org: 'Acme', day: day(0), admitted: 60, refused: 10 },
      ],
      total: { admitted: 72, refused: 17 },
    });

    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.trim()).toBe('nerkh: no key has id "key_000000000000"; see nerkh keys list');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('must be a whole number of days from 1 to 3660');
  });
});
