import type { Quote } from './types.ts';

/** A quote as a parser reads it from a body: the poll loop adds the configured source name. */
export type ParsedQuote = Omit<Quote, 'source'>;

/**
 * What a polled source's parser makes of one body. `unreadable`: the document as a whole is not
 * the source's format (not JSON, not the expected shape); several in a row mean the source is
 * refusing us in all but name. `read`: the valid quotes, and a short machine label for each market
 * or field that failed validation.
 */
export type BodyResult =
  | { kind: 'read'; quotes: ParsedQuote[]; rejected: string[] }
  | { kind: 'unreadable'; reason: string };
