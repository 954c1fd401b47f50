import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  haproxyMissing,
  haproxyPath,
  opsHaproxyConfig,
  renderHaproxyConfig,
} from '../../drills/support/haproxy.ts';

/**
 * ops/compose/haproxy/haproxy.cfg: HAProxy accepts it, and the drills' rendering of it keeps its
 * backend as written (checks, retries, redispatch), changing only the servers and listeners.
 * `haproxy -c` needs Debian's haproxy: skipped, saying why, without it unless
 * NERKH_REQUIRE_HAPROXY=1 (CI).
 */
const run = promisify(execFile);
const required = process.env.NERKH_REQUIRE_HAPROXY === '1';
const missing = haproxyMissing();
if (missing !== null && !required) process.stdout.write(`haproxy -c tests skipped: ${missing}\n`);
const source = readFileSync(opsHaproxyConfig, 'utf8');
const rendered = renderHaproxyConfig(source, {
  publicPort: 18080,
  healthPort: 18404,
  servers: [
    { name: 'api-1', port: 18081, opsPort: 19464 },
    { name: 'api-2', port: 18082, opsPort: 19465 },
  ],
  statsSocket: '/tmp/nerkh-haproxy-test.sock',
});

/** The directive lines of a section, comments and blank lines left out. */
function section(config: string, header: string): string[] {
  const lines = config.split('\n');
  const start = lines.indexOf(header);
  const end = lines.findIndex((line, index) => index > start && /^\S/.test(line));
  return lines
    .slice(start + 1, end === -1 ? undefined : end)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('the balancer configuration (ops/compose/haproxy/haproxy.cfg)', () => {
  it('finds the API replicas by DNS, checks /readyz on the operations port and retries idempotent requests', () => {
    const backend = section(source, 'backend api');
    expect(backend).toContain('option httpchk GET /readyz');
    expect(backend).toContain('retry-on conn-failure empty-response response-timeout 503');
    expect(backend).toContain('option redispatch 1');
    expect(backend).toContain('http-request disable-l7-retry unless METH_GET');
    expect(backend.find((line) => line.startsWith('default-server'))).toMatch(
      / port 9464 .* resolvers compose /,
    );
    expect(backend.find((line) => line.startsWith('server-template'))).toBe(
      'server-template api- 1-10 api:8080',
    );
    expect(section(source, 'resolvers compose')).toContain('parse-resolv-conf');
  });

  it('is rendered for the drills with the same backend, only the servers local', () => {
    const ops = section(source, 'backend api');
    const drill = section(rendered, 'backend api');
    expect(drill.filter((line) => !line.startsWith('server '))).toEqual(
      ops.filter((line) => !line.startsWith('server-template')),
    );
    expect(drill.filter((line) => line.startsWith('server '))).toEqual([
      'server api-1 127.0.0.1:18081 port 19464 init-addr libc',
      'server api-2 127.0.0.1:18082 port 19465 init-addr libc',
    ]);
  });

  describe.skipIf(missing !== null && !required)('with haproxy', () => {
    it('haproxy -c accepts the file and its rendering for the drills', async () => {
      if (missing !== null) throw new Error(`NERKH_REQUIRE_HAPROXY=1 but ${missing}`);
      const dir = mkdtempSync(join(tmpdir(), 'nerkh-haproxy-check-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'drill.cfg'), rendered);
      for (const file of [opsHaproxyConfig, join(dir, 'drill.cfg')]) {
        const { stdout } = await run(haproxyPath, ['-c', '-f', file]);
        expect(stdout).toContain('Configuration file is valid');
      }
    });
  });
});
