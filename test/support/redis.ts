import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './run-cli.ts';

/** The machine's Redis, as `.ci/run` starts it. */
export const testRedisUrl = 'redis://127.0.0.1:6379';

const required = process.env.NERKH_REQUIRE_REDIS === '1';

/**
 * Whether the tests against real Redis run: true when Redis answers a PING. When it does not,
 * they are skipped with the reason printed, or, under `NERKH_REQUIRE_REDIS=1` (CI), fail.
 */
export async function redisAvailable(suite: string): Promise<boolean> {
  const probe = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The connection error says why (ECONNREFUSED, a timeout); the rejected connect only that it closed.
  let cause: Error | null = null;
  probe.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch (error) {
    const reason = `no Redis answers at ${testRedisUrl} (${(cause ?? (error as Error)).message})`;
    if (required) throw new Error(`NERKH_REQUIRE_REDIS=1 but ${reason}`);
    process.stdout.write(`${suite} skipped: ${reason}; start one with redis-server, see .ci/run\n`);
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A prefix no other run (or other process on the machine) writes under. */
export function testKeyPrefix(): string {
  return `nerkh-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix` (SCAN, so the server is never blocked by KEYS). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/**
 * The admission times, in microseconds, oldest first, that a Redis limiter key holds (8-byte
 * big-endian doubles, src/limiter/redis/sliding-log-script.ts); none for a key that does not exist.
 */
export async function admissionsIn(redis: Redis, key: string): Promise<number[]> {
  const value = await redis.getBuffer(key);
  if (value === null) return [];
  return Array.from({ length: value.length / 8 }, (_, i) => value.readDoubleBE(i * 8));
}

/** A Redis server a test started for itself, with a password (and TLS when asked). */
export interface PrivateRedis {
  /** The plain TCP port, or null when it listens on TLS alone. */
  port: number | null;
  /** The TLS port, when started with TLS. */
  tlsPort: number | null;
  /** The CA (a self-signed certificate for 127.0.0.1) a client must trust, when started with TLS. */
  caFile: string | null;
  stop(): Promise<void>;
}

/**
 * Starts a `redis-server` of the test's own on a free port, with `--requirepass`, so a password is
 * tested without reconfiguring the machine's shared Redis; with `tls`, on a TLS port alone, its
 * certificate self-signed for 127.0.0.1 (made with openssl). Keeps nothing on disk. Resolves once
 * the server says it accepts connections; `stop()` ends it and removes its files.
 */
export async function startPrivateRedis(options: { password: string; tls?: boolean }): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-private-redis-'));
  const port = await freePort();
  const args = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  args.push('--requirepass', options.password);
  let caFile: string | null = null;
  if (options.tls === true) {
    caFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    execFileSync('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', keyFile, '-out', caFile, '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1'],
    ]);
    args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', caFile);
    args.push('--tls-key-file', keyFile, '--tls-ca-cert-file', caFile, '--tls-auth-clients', 'no');
  } else {
    args.push('--port', String(port));
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${output.trim()}`)));
  });
  return {
    port: options.tls === true ? null : port,
    tlsPort: options.tls === true ? port : null,
    caFile,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
