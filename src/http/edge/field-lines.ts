import { validateHeaderName, validateHeaderValue } from 'node:http';
import { flatString } from '../../flat-string.ts';

/**
 * Header fields (flat name, value, …) as lines of a response head: `name: value` each, ended by
 * CRLF (RFC 9112 §2.1), as one flat string (../../flat-string.ts). Each field is checked with
 * node:http's own validators when the block is made, as `writeHead` would check it, so a block can
 * be sent many times without checking again.
 */
export function renderFields(fields: readonly string[]): string {
  if (fields.length % 2 !== 0) throw new Error('header fields come in name, value pairs');
  const lines: string[] = [];
  for (let index = 0; index < fields.length; index += 2) {
    const name = fields[index] as string;
    const value = fields[index + 1] as string;
    validateHeaderName(name);
    validateHeaderValue(name, value);
    lines.push(name, ': ', value, '\r\n');
  }
  return flatString(...lines);
}
