import type { IncomingHttpHeaders } from 'node:http';
import { negotiateContentCoding } from '../../web/content-coding.ts';
import type { EncodedBody } from '../snapshot/body-encoding.ts';
import type { SnapshotView } from '../snapshot/snapshot-view.ts';

/** Weak comparison of If-None-Match against the selected representation (RFC 9110 §13.1.2). */
function etagMatches(ifNoneMatch: string, etag: string): boolean {
  // The common case, a client sending back the one tag it was given, needs no parsing.
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

function notModified(headers: IncomingHttpHeaders, etag: string, view: SnapshotView): boolean {
  // If-None-Match, when present, decides alone (RFC 9110 §13.1.3).
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, etag);
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const sinceMs = Date.parse(since);
  return Number.isFinite(sinceMs) && Math.floor(view.updatedAtMs / 1000) * 1000 <= sinceMs;
}

/**
 * A response worked out from the snapshot: its status, the representation's header fields (flat
 * name, value, …; the snapshot's own array, not a copy) and the same rendered as head lines,
 * Cache-Control and the body.
 */
export interface RatesResponse {
  status: 200 | 304;
  fields: readonly string[];
  fieldLines: string;
  cacheControl: string;
  body: Buffer | undefined;
}

/**
 * The answer to an admitted `GET /v1/rates` for `body` (the full list, or one symbol's) from
 * `view`: the representation in the negotiated coding, a 304 when the request's validators match
 * it, and Cache-Control counting down to the next refresh. The bytes and fields were worked out
 * with the snapshot (../snapshot/snapshot-view.ts): nothing is serialized here. The route
 * (./route.ts) and the fast path (./fast-path.ts) both answer with it.
 */
export function ratesResponse(
  view: SnapshotView,
  body: EncodedBody,
  headers: IncomingHttpHeaders,
  nowMs: number,
): RatesResponse {
  const representation = body[negotiateContentCoding(headers['accept-encoding'])];
  const cacheControl = view.cacheControl(nowMs);
  if (notModified(headers, representation.etag, view)) {
    return {
      status: 304,
      fields: representation.notModifiedFields,
      fieldLines: representation.notModifiedLines,
      cacheControl,
      body: undefined,
    };
  }
  return {
    status: 200,
    fields: representation.fields,
    fieldLines: representation.fieldLines,
    cacheControl,
    body: representation.body,
  };
}
