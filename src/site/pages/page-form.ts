/**
 * Which form of a website page to answer (docs/architecture.md#the-website). Pages exist as HTML (the default, for
 * browsers and `*∕*`) and as Markdown (for agents). Markdown is chosen only when the client names
 * `text/markdown` itself with q > 0 and no lower than it would accept `text/html`; a wildcard alone
 * never selects Markdown, so `curl` and browsers keep getting HTML. JSON-only clients get problem
 * documents for page errors instead of an HTML page they cannot read.
 */

type PageForm = 'html' | 'markdown' | 'json';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Parses an `Accept` field value (RFC 9110 §12.5.1); malformed members are skipped. */
function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{ type: '*', subtype: '*', q: 1 }];
  const ranges: MediaRange[] = [];
  for (const member of header.split(',')) {
    const [range = '', ...params] = member.split(';').map((part) => part.trim());
    const match = /^([\w.+!#$&^-]+|\*)\/([\w.+!#$&^-]+|\*)$/.exec(range.toLowerCase());
    if (!match?.[1] || !match[2]) continue;
    let q = 1;
    for (const param of params) {
      const qMatch = /^q\s*=\s*([01](?:\.\d{0,3})?)$/i.exec(param);
      if (qMatch?.[1]) q = Math.min(1, Number(qMatch[1]));
    }
    ranges.push({ type: match[1], subtype: match[2], q });
  }
  return ranges;
}

/**
 * Quality the client gives `type/subtype`: that of the most specific matching range
 * (RFC 9110 §12.5.1: `text/html` over `text/*` over `*∕*`), or 0 when nothing matches.
 */
function qualityOf(ranges: readonly MediaRange[], mediaType: string, exactOnly = false): number {
  const [type, subtype] = mediaType.split('/');
  let best = -1;
  let quality = 0;
  for (const range of ranges) {
    let specificity: number;
    if (range.type === type && range.subtype === subtype) specificity = 2;
    else if (exactOnly) continue;
    else if (range.type === type && range.subtype === '*') specificity = 1;
    else if (range.type === '*' && range.subtype === '*') specificity = 0;
    else continue;
    if (specificity > best) {
      best = specificity;
      quality = range.q;
    }
  }
  return quality;
}

export function choosePageForm(accept: string | undefined): PageForm {
  const ranges = parseAccept(accept);
  const html = qualityOf(ranges, 'text/html');
  const markdown = qualityOf(ranges, 'text/markdown', true);
  if (markdown > 0 && markdown >= html) return 'markdown';
  if (html > 0) return 'html';
  const json = Math.max(qualityOf(ranges, 'application/json'), qualityOf(ranges, 'application/problem+json'));
  return json > 0 ? 'json' : 'html';
}
