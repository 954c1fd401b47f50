/**
 * What the bench serves and sends, fixed for every run: the snapshot's size, the keys, and the
 * limits of the burst and the Redis cut.
 */

export const coins = 200;
/** Keys the load rotates through, one per request. */
export const benchKeys = 10_000;
/** Keys issued, and each used through the server, before peak memory is read. */
export const rssKeys = 100_000;
/** High enough that no key reaches it during the bench; the limiter still runs on every request. */
export const benchKeyLimit = 1_000_000;
export const publicUrl = 'https://rates.example.ir';
/** Starts timed from process start to the first 200; the median is the figure. */
export const startupRuns = 7;
/** The burst: the spec's limit and window (nerkh's defaults), one key, two instances each. */
export const burstLimit = 60;
export const burstWindowSeconds = 60;
export const burstRequests = 300;
/** The Redis cut: three phases, and one request in about this many with a key limited to `burstLimit`. */
export const outagePhaseSeconds = 5;
export const outageLimitedEvery = 100;

/**
 * Peak RSS with 100,000 keys in use: 150 MB on Node 20. On Node 24 the same process, the same keys
 * and load take more of the runtime's own memory, none of it nerkh's JS heap: 12 MB more of the
 * node binary's file pages resident (clean, one copy for every process started from that binary)
 * and more in malloc's heap and V8's external memory; its target is 170 MB
 * (docs/performance.md#memory-on-node-24).
 */
const rssTargetMB = Number(process.versions.node.split('.')[0]) >= 24 ? 170 : 150;

/** The targets of docs/performance.md, each checked in the report's "Targets". */
export const targets = {
  ratio: 0.8,
  p99Ms: 5,
  notModifiedBytes: 400,
  rssMB: rssTargetMB,
  firstOkMs: 1000,
  redisOverMemory: 0.7,
  redisOverPeer: 1.2,
  overPeers: 1.5,
  overNodeHttp: 0.8,
  redisOverNodeHttp: 0.7,
};
