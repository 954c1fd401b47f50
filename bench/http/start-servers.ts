import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { BenchRun } from './bench-run.ts';
import { freePort } from './free-port.ts';
import { type Fetched, get } from './http-get.ts';
import type { Etags } from './measure-load.ts';
import { startNerkh } from './nerkh.ts';
import { startNginx } from './nginx.ts';
import { startNodeReference } from './node-floor.ts';
import { startPeer } from './peers.ts';
import { benchKeyLimit, publicUrl } from './workload.ts';

/** What nerkh sent once it ran: the bytes every other server is given to send. */
export interface StartedServers {
  /** nerkh's full list, uncompressed. */
  plain: Fetched;
  etags: Etags;
  /** Sizes of nerkh's gzip full list and its BTC answer (base part only; 0 otherwise). */
  gzipBytes: number;
  btcBytes: number;
}

/**
 * nerkh as a user runs it, then the other servers of the selected parts, sending the exact bytes
 * nerkh sent: nginx from files holding them, bare node:http and raw TCP, nerkh with its limits in
 * Redis, and the peers.
 */
export async function startServers(run: BenchRun, readyKey: string): Promise<StartedServers> {
  const { parts, profile } = run.options;
  const { work, root, bodyFile, dataDir, onServerCpu } = run;
  const nerkh = await startNerkh({
    dataDir,
    port: await freePort(),
    publicUrl,
    logFile: join(work, 'nerkh.log'),
    readyKey,
    ...onServerCpu,
    ...(profile ? { cpuProfDir: run.profileDirs.nerkh } : {}),
  });
  run.servers.nerkh = nerkh;
  const auth = { 'X-API-Key': readyKey };
  const plain = await get(`${nerkh.url}/v1/rates`, auth);
  if (plain.status !== 200) throw new Error(`nerkh answered ${plain.status} to a valid key`);
  mkdirSync(join(root, 'v1', 'symbol'), { recursive: true });
  // nginx's worker runs as an unprivileged user: it may pass through the private work directory
  // (mkdtemp makes it 0700) to the document root, but not list it.
  chmodSync(work, 0o711);
  writeFileSync(bodyFile, plain.body);
  const etags: Etags = { nerkh: String(plain.headers.etag) };
  let gzipBytes = 0;
  let btcBytes = 0;
  if (parts.has('base')) {
    const gzip = await get(`${nerkh.url}/v1/rates`, { ...auth, 'Accept-Encoding': 'gzip' });
    const btc = await get(`${nerkh.url}/v1/rates?symbol=BTC`, auth);
    if (gzip.headers['content-encoding'] !== 'gzip' || btc.status !== 200) {
      throw new Error('nerkh did not serve the bench snapshot as expected');
    }
    if (!gunzipSync(gzip.body).equals(plain.body)) throw new Error('gzip body differs from the plain body');
    // nerkh's own gzip bytes (level 9) as the pre-compressed file, so both send the same bytes.
    writeFileSync(join(root, 'v1', 'rates.gz'), gzip.body);
    writeFileSync(join(root, 'v1', 'symbol', 'BTC'), btc.body);
    gzipBytes = gzip.body.length;
    btcBytes = btc.body.length;
    mkdirSync(join(work, 'nginx'), { recursive: true });
    run.servers.nginx = await startNginx({
      root,
      workDir: join(work, 'nginx'),
      port: await freePort(),
      ...onServerCpu,
    });
    const reference = { bodyFile, ...onServerCpu };
    run.servers.floor = await startNodeReference('node:http', { port: await freePort(), ...reference });
    run.servers.raw = await startNodeReference('raw TCP', { port: await freePort(), ...reference });
    etags.nginx = String((await get(`${run.servers.nginx.url}/v1/rates`, auth)).headers.etag);
    etags.floor = '"floor"';
    etags.raw = '"raw"';
  }
  if (parts.has('redis')) {
    run.servers.nerkhRedis = await startNerkh({
      dataDir,
      port: await freePort(),
      publicUrl,
      logFile: join(work, 'nerkh-redis.log'),
      readyKey,
      redisUrl: run.redisUrl,
      ...onServerCpu,
      ...(profile ? { cpuProfDir: run.profileDirs.nerkhRedis } : {}),
    });
  }
  if (parts.has('peers')) {
    const peer = (name: string) => ({
      bodyFile,
      keysFile: run.keysFile,
      limit: benchKeyLimit,
      windowMs: 60_000,
      logFile: join(work, `peer-${name}.log`),
      ...onServerCpu,
    });
    run.servers.fastifyRedis = await startPeer('fastify', {
      port: await freePort(),
      ...peer('fastify-redis'),
      redis: { url: run.redisUrl, prefix: `${run.peerPrefix}load:` },
    });
    run.servers.fastify = await startPeer('fastify', { port: await freePort(), ...peer('fastify') });
    run.servers.express = await startPeer('express', { port: await freePort(), ...peer('express') });
  }
  return { plain, etags, gzipBytes, btcBytes };
}
