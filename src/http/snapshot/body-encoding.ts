import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliCompressSync,
  gzipSync,
  constants as zlibConstants,
  gzip as zlibGzip,
} from 'node:zlib';
import type { RateRow, RatesResponse, Snapshot } from '../../domain/rates.ts';
import type { ContentCoding } from '../../web/content-coding.ts';
import { renderFields } from '../edge/field-lines.ts';

const gzip = promisify(zlibGzip);
const brotli = promisify(brotliCompress);

/**
 * How the rates bodies are encoded: serialized once in the response's field order, then compressed
 * in every coding the endpoint serves, each a representation with its own ETag and header fields.
 */

/**
 * One representation of a response body (RFC 9110 §3.2): its bytes, its strong ETag (§8.8.3),
 * and the header fields that describe it, worked out once so a request only adds its own.
 * Fields are flat (name, value, …), as node:http's `writeHead` takes them, and rendered as the
 * lines of a response head (../edge/field-lines.ts), as the rates fast path sends them.
 */
interface Representation {
  readonly body: Buffer;
  readonly etag: string;
  /** Fields of a 200 carrying this body. */
  readonly fields: readonly string[];
  readonly fieldLines: string;
  /**
   * Fields of a 304 for it: the ETag and Vary a 200 would carry (RFC 9110 §15.4.5; the route adds
   * Cache-Control). Not Last-Modified, which §15.4.5 leaves out when there is an ETag, nor
   * Content-Length or Content-Type, which would describe a body the 304 does not have.
   */
  readonly notModifiedFields: readonly string[];
  readonly notModifiedLines: string;
}

/** One response body in every coding it is served in. */
export type EncodedBody = Readonly<Record<ContentCoding, Representation>>;

export interface RatesLabels {
  /** `source` of every response (NERKH_SOURCE_LABEL); absent, each snapshot's own label. */
  source?: string;
  disclaimer: string;
  refreshSeconds: number;
}

export function ratesJson(snapshot: Snapshot, labels: RatesLabels, rates: RateRow[]): Buffer {
  // Field order of the rates response (content/docs.md, "Response"); rows are already in the row shape.
  const response: RatesResponse = {
    source: labels.source ?? snapshot.source,
    side: 'sell',
    usdt_irt: snapshot.usdt_irt,
    updated_at: snapshot.updated_at,
    disclaimer: labels.disclaimer,
    count: rates.length,
    rates,
  };
  return Buffer.from(JSON.stringify(response));
}

// Highest settings: each body is compressed once per snapshot and sent many times.
const gzipOptions = { level: 9 };
export const bestBrotli = zlibConstants.BROTLI_MAX_QUALITY;
/**
 * Brotli's quality for the full list of the first snapshot an instance serves, which it cannot
 * answer before: the best quality is slow on the start's critical path (the compression sharing
 * the instance's one core), quality 5 quick for a somewhat larger body
 * (docs/decisions/0026-quick-brotli-at-start.md). The view re-encodes it at the best quality right
 * after it is served (`SnapshotView.prepare`).
 */
export const quickBrotli = 5;
const brotliOptions = (json: Buffer, quality: number) => ({
  params: {
    [zlibConstants.BROTLI_PARAM_QUALITY]: quality,
    [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
    [zlibConstants.BROTLI_PARAM_SIZE_HINT]: json.length,
  },
});

/** The validators a representation is known by: `tag` names the snapshot and body. */
export interface Validators {
  tag: string;
  /** `updated_at` as an HTTP-date (RFC 9110 §5.6.7). */
  lastModified: string;
}

/**
 * zlib hands back a small result as a view into its whole output chunk (8 or 16 KiB): kept as it
 * is, each 400-byte body of a single symbol would hold 16 KiB, megabytes over every symbol.
 */
function exactBytes(bytes: Buffer): Buffer {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : Buffer.from(bytes);
}

function representation(
  body: Buffer,
  coding: ContentCoding,
  etag: string,
  lastModified: string,
): Representation {
  // Each coding is a different representation of one resource, chosen by Accept-Encoding (§12.5.5).
  const notModifiedFields = ['vary', 'Accept-Encoding', 'etag', etag];
  const encoding = coding === 'identity' ? [] : ['content-encoding', coding];
  const fields = [
    ...notModifiedFields,
    'last-modified',
    lastModified,
    'content-type',
    'application/json',
    ...encoding,
    'content-length',
    String(body.length),
  ];
  return {
    body: exactBytes(body),
    etag,
    fields,
    fieldLines: renderFields(fields),
    notModifiedFields,
    notModifiedLines: renderFields(notModifiedFields),
  };
}

/** The br representation at `quality`: other bytes at each quality, so an ETag of its own. */
function brotliRepresentation(brotlied: Buffer, quality: number, { tag, lastModified }: Validators) {
  return representation(brotlied, 'br', `"${tag}-br${quality === bestBrotli ? '' : quality}"`, lastModified);
}

function encoded(
  json: Buffer,
  gzipped: Buffer,
  brotlied: Buffer,
  brotliQuality: number,
  validators: Validators,
): EncodedBody {
  const { tag, lastModified } = validators;
  return {
    identity: representation(json, 'identity', `"${tag}"`, lastModified),
    gzip: representation(gzipped, 'gzip', `"${tag}-gzip"`, lastModified),
    br: brotliRepresentation(brotlied, brotliQuality, validators),
  };
}

/** Compresses on the libuv thread pool, so the event loop keeps answering meanwhile. */
export async function encodeAsync(
  json: Buffer,
  validators: Validators,
  brotliQuality = bestBrotli,
): Promise<EncodedBody> {
  const [gzipped, brotlied] = await Promise.all([
    gzip(json, gzipOptions),
    brotli(json, brotliOptions(json, brotliQuality)),
  ]);
  return encoded(json, gzipped, brotlied, brotliQuality, validators);
}

/** Compresses on the event loop, for a body a request needs at once; br at `brotliQuality`. */
export function encodeNow(json: Buffer, validators: Validators, brotliQuality = bestBrotli): EncodedBody {
  return encoded(
    json,
    gzipSync(json, gzipOptions),
    brotliCompressSync(json, brotliOptions(json, brotliQuality)),
    brotliQuality,
    validators,
  );
}

/** The br representation of `json` at the best quality, made off the event loop. */
export async function bestBrotliRepresentation(
  json: Buffer,
  validators: Validators,
): Promise<Representation> {
  return brotliRepresentation(await brotli(json, brotliOptions(json, bestBrotli)), bestBrotli, validators);
}
