/**
 * Accept-Encoding negotiation (RFC 9110 §12.5.3) over the codings the rates bodies are
 * precompressed in. Ties go to the smaller body: br, then gzip, then identity.
 */
export type ContentCoding = 'br' | 'gzip' | 'identity';

const preference: readonly ContentCoding[] = ['br', 'gzip', 'identity'];

/** Clients send few distinct headers; remembering them keeps parsing off the hot path. */
const remembered = new Map<string, ContentCoding>();
const rememberLimit = 256;

export function negotiateContentCoding(acceptEncoding: string | undefined): ContentCoding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity';
  const known = remembered.get(acceptEncoding);
  if (known !== undefined) return known;
  const chosen = parseAndChoose(acceptEncoding);
  if (remembered.size >= rememberLimit) remembered.clear();
  remembered.set(acceptEncoding, chosen);
  return chosen;
}

function parseAndChoose(header: string): ContentCoding {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...parameters] = part.split(';');
    const name = rawName?.trim().toLowerCase();
    if (!name) continue;
    let weight = 1;
    for (const parameter of parameters) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(parameter);
      if (match) weight = Number(match[1]);
    }
    weights.set(name, Number.isFinite(weight) ? Math.min(weight, 1) : 0);
  }
  const wildcard = weights.get('*');
  const weightOf = (coding: ContentCoding): number => {
    const explicit = weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined);
    if (explicit !== undefined) return explicit;
    if (wildcard !== undefined) return wildcard;
    // identity is acceptable unless excluded explicitly or by `*;q=0` (RFC 9110 §12.5.3), but a
    // coding the client lists is what it prefers, so unlisted identity ranks below any of them.
    return coding === 'identity' ? 0.001 : 0;
  };
  let best: ContentCoding = 'identity';
  let bestWeight = 0;
  for (const coding of preference) {
    const weight = weightOf(coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  // Nothing acceptable at all: an unencoded body is still the most useful answer (RFC 9110 allows it).
  return best;
}
