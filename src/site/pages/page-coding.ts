import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type ContentCoding, negotiateContentCoding } from '../../web/content-coding.ts';

/**
 * Pages go out compressed when the client accepts it (RFC 9110 §8.4): the coins list with the
 * whole catalog and its sparklines is large, and a first visit (HTML, its inline CSS and the font)
 * must stay within the site's 150 kB budget (docs/architecture.md#the-website). Pages change with
 * every snapshot and request (ages, forms), so they are compressed per answer, at levels chosen for
 * a short time on the largest page rather than the smallest output.
 */

/** Below this, the coding's own overhead is not worth it. */
const minimumBytes = 1024;

export function encodePage(
  body: string,
  acceptEncoding: string | undefined,
): { coding: ContentCoding; bytes: Buffer } {
  const bytes = Buffer.from(body);
  const coding = bytes.length < minimumBytes ? 'identity' : negotiateContentCoding(acceptEncoding);
  if (coding === 'br') {
    return { coding, bytes: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) };
  }
  if (coding === 'gzip') return { coding, bytes: gzipSync(bytes, { level: 6 }) };
  return { coding, bytes };
}
