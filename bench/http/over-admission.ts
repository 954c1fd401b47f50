import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { admitted, burst, formatCounts, type StatusCounts } from './burst.ts';
import type { BenchKey } from './fixture.ts';
import { freePort } from './free-port.ts';
import { type NerkhProcess, startNerkh } from './nerkh.ts';
import { limiterEvents, logLines } from './nerkh-log.ts';
import type { StaticServer } from './nginx.ts';
import { type PeerOptions, peerRedisKey, startPeer } from './peers.ts';

export interface OverAdmissionSetup {
  dataDir: string;
  publicUrl: string;
  workDir: string;
  redisUrl: string;
  /** The bench's own connection to that Redis, to read the peer's window. */
  redis: Redis;
  /** Start of every Redis key the peers write (unique to the run). */
  peerPrefix: string;
  bodyFile: string;
  /** A valid key with a limit no readiness check can reach. */
  readyKey: string;
  /** Two fresh keys issued with `limit`: one per burst, so the second starts from nothing. */
  oneWindowKey: BenchKey;
  straddleKey: BenchKey;
  /** Each key's limit per window, nerkh's (the key's own) and the peer's. */
  limit: number;
  /** nerkh's window (NERKH_RATE_WINDOW_SECONDS, left at its default) and the peer's. */
  windowSeconds: number;
  /** Requests per burst, split over the two instances. */
  requests: number;
  cpu?: number;
}

/** Every answer is an admission or a refusal for the limit: anything else voids the count. */
function checked(label: string, counts: StatusCounts): StatusCounts {
  for (const status of counts.keys()) {
    if (status !== 200 && status !== 429) throw new Error(`${label} answered ${formatCounts(counts)}`);
  }
  return counts;
}

function sum(...counts: StatusCounts[]): number {
  return counts.reduce((total, each) => total + admitted(each), 0);
}

/**
 * How many requests each limiter admits when two instances share one key's limit, with nothing
 * in front of them (each request goes to the next instance in turn):
 * - nerkh: two `serve --role api` on one data directory and one Redis;
 * - the peer: two Fastify + @fastify/rate-limit sharing its Redis store; and, for comparison, two
 *   with its default in-memory store, each counting alone.
 * First one burst inside one window. Then the burst the peer's fixed window cannot hold: its window
 * opens with the key's first request and lasts `windowSeconds`; a request opens it, and when
 * Redis says it has about a second left, half the requests go, and the other half right after it
 * closes. Within that second and a bit the peer admits what is left of one window and a whole new
 * one; nerkh's rolling window holds every `windowSeconds` interval to the limit.
 * Afterwards it prints what nerkh logged about where its limits live: a Redis command that fails or
 * times out (250 ms, which a burst on a busy machine can exceed) sends an instance to its own
 * in-memory limit, and then the two instances together admit up to twice the limit.
 */
export async function measureOverAdmission(setup: OverAdmissionSetup): Promise<void> {
  const { limit, windowSeconds, requests } = setup;
  const windowMs = windowSeconds * 1000;
  const keysFile = join(setup.workDir, 'burst-keys.txt');
  // The peer names a key by its line: key_0 for the first burst's, key_1 for the straddling one's.
  writeFileSync(keysFile, `${setup.oneWindowKey.key}\n${setup.straddleKey.key}\n`);
  const peerPrefix = `${setup.peerPrefix}burst:`;
  const running: Array<NerkhProcess | StaticServer> = [];
  const nerkhLogs = [1, 2].map((instance) => join(setup.workDir, `nerkh-burst-${instance}.log`));
  const pinnedTo = setup.cpu === undefined ? {} : { cpu: setup.cpu };
  const startPeerPair = async (redis: PeerOptions['redis'], name: string) => {
    const pair: StaticServer[] = [];
    for (const instance of [1, 2]) {
      const peer = await startPeer('fastify', {
        port: await freePort(),
        bodyFile: setup.bodyFile,
        keysFile,
        limit,
        windowMs,
        logFile: join(setup.workDir, `${name}-${instance}.log`),
        ...(redis === undefined ? {} : { redis }),
        ...pinnedTo,
      });
      running.push(peer);
      pair.push(peer);
    }
    return pair.map((peer) => peer.url);
  };
  try {
    const nerkhUrls: string[] = [];
    for (const logFile of nerkhLogs) {
      const nerkh = await startNerkh({
        dataDir: setup.dataDir,
        port: await freePort(),
        publicUrl: setup.publicUrl,
        logFile,
        readyKey: setup.readyKey,
        redisUrl: setup.redisUrl,
        ...pinnedTo,
      });
      running.push(nerkh);
      nerkhUrls.push(nerkh.url);
    }
    const peerUrls = await startPeerPair({ url: setup.redisUrl, prefix: peerPrefix }, 'peer-burst-redis');
    const memoryPeerUrls = await startPeerPair(undefined, 'peer-burst-memory');
    const path = '/v1/rates';

    console.log('');
    console.log(
      `Over-admission: two instances of each limiter, no load balancer, one key, limit ${limit} per ${windowSeconds} s, requests sent in turn to each instance`,
    );
    const oneKey = setup.oneWindowKey.key;
    const peerOne = checked('the peer', await burst(peerUrls, path, oneKey, requests));
    const nerkhOne = checked('nerkh', await burst(nerkhUrls, path, oneKey, requests));
    const memoryOne = checked('the in-memory peer', await burst(memoryPeerUrls, path, oneKey, requests));
    console.log(
      `  one window, ${requests} requests at once: peer admitted ${admitted(peerOne)} (limit ${limit}), nerkh admitted ${admitted(nerkhOne)}`,
    );
    console.log(
      `    (peer = Fastify + @fastify/rate-limit with its Redis store; with its default in-memory store each instance counts alone: admitted ${admitted(memoryOne)})`,
    );

    // nerkh's opening request goes first, so it has left nerkh's window when the peer's closes.
    const key = setup.straddleKey.key;
    const nerkhOpen = checked('nerkh', await burst(nerkhUrls.slice(0, 1), path, key, 1));
    const peerOpen = checked('the peer', await burst(peerUrls.slice(0, 1), path, key, 1));
    if (admitted(nerkhOpen) + admitted(peerOpen) !== 2) throw new Error('the opening request was refused');
    const windowKey = peerRedisKey(peerPrefix, 1);
    const left = await setup.redis.pttl(windowKey);
    if (left <= 0) throw new Error(`the peer's window key ${windowKey} has no expiry (PTTL ${left})`);
    const leadMs = 1000;
    console.log(
      `  waiting ${((left - leadMs) / 1000).toFixed(0)} s for the peer's window (opened by one request to each limiter) to near its end…`,
    );
    await sleep(Math.max(0, left - leadMs));
    const half = Math.floor(requests / 2);
    const firstSentAt = performance.now();
    const firstLeftMs = await setup.redis.pttl(windowKey);
    const [peerFirst, nerkhFirst] = await Promise.all([
      burst(peerUrls, path, key, half),
      burst(nerkhUrls, path, key, half),
    ]);
    const firstDoneAt = performance.now();
    // Redis expires the key when its window ends: PTTL -2 means the next request opens a new one.
    while ((await setup.redis.pttl(windowKey)) !== -2) await sleep(5);
    const [peerSecond, nerkhSecond] = await Promise.all([
      burst(peerUrls, path, key, requests - half),
      burst(nerkhUrls, path, key, requests - half),
    ]);
    const secondDoneAt = performance.now();
    for (const [label, counts] of [
      ['the peer', peerFirst],
      ['nerkh', nerkhFirst],
      ['the peer', peerSecond],
      ['nerkh', nerkhSecond],
    ] as const) {
      checked(label, counts);
    }
    console.log(
      `  across the peer's window boundary, ${half} requests sent ${(firstLeftMs / 1000).toFixed(2)} s before its window ended (answered in ${((firstDoneAt - firstSentAt) / 1000).toFixed(2)} s) and ${requests - half} right after, all answered within ${((secondDoneAt - firstSentAt) / 1000).toFixed(2)} s: peer admitted ${sum(peerFirst, peerSecond)} (limit ${limit}), nerkh admitted ${sum(nerkhFirst, nerkhSecond)}`,
    );
    console.log(
      `    (before the boundary peer ${admitted(peerFirst)}, nerkh ${admitted(nerkhFirst)}; after it peer ${admitted(peerSecond)}, nerkh ${admitted(nerkhSecond)}. nerkh's window rolls: its opening request leaves it ${windowSeconds} s after it was admitted, which frees one slot)`,
    );
    if (firstDoneAt - firstSentAt > firstLeftMs) {
      console.log(
        '    (the first half was still being answered when the window ended: some of it opened the next)',
      );
    }
    // A clean stop writes out every log line still collected.
    await Promise.all(running.map((server) => server.stop()));
    for (const [index, nerkh] of nerkhLogs.entries()) {
      for (const event of await limiterEvents(logLines(nerkh))) {
        console.log(`    nerkh instance ${index + 1} logged: ${event}`);
      }
    }
  } finally {
    await Promise.all(running.map((server) => server.stop()));
  }
}
