import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalog, errorCodes, problem, problemDocument } from '../../../src/http/errors/catalog.ts';
import { projectRoot } from '../../../src/project-root.ts';

/**
 * The README's Errors table as code → status. A row lists one status for all its codes, or as
 * many statuses as codes (`| 406 / 408 | \`a\`, \`b\` |`), paired in order; parenthesised notes
 * are not codes.
 */
function readmeErrorTable(): Map<string, number> {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = /\n### Errors\n([\s\S]*?)\n#{2,3} /.exec(readme)?.[1] ?? '';
  const table = /\| Status \| Codes \|\n\|---\|---\|\n((?:\|.*\|\n)+)/.exec(section)?.[1];
  if (table === undefined) throw new Error('README.md has no "| Status | Codes |" table under ### Errors');
  const codes = new Map<string, number>();
  for (const row of table.trimEnd().split('\n')) {
    const [, statusCell = '', codeCell = ''] = row.split('|').map((cell) => cell.trim());
    const statuses = statusCell.split('/').map((status) => Number(status.trim()));
    const names = [...codeCell.replace(/\([^)]*\)/g, '').matchAll(/`([^`]+)`/g)].map(
      (match) => match[1] as string,
    );
    if (statuses.length > 1 && statuses.length !== names.length) {
      throw new Error(
        `README error row "${row}" lists ${statuses.length} statuses for ${names.length} codes`,
      );
    }
    names.forEach((name, index) => {
      if (codes.has(name)) throw new Error(`README lists ${name} twice`);
      codes.set(name, statuses.length === 1 ? (statuses[0] as number) : (statuses[index] as number));
    });
  }
  return codes;
}

describe('error catalog', () => {
  it.each(errorCodes)('%s is documented: status, title, description and a /docs/errors anchor', (code) => {
    const entry = errorCatalog[code];
    expect(entry.status).toBeGreaterThanOrEqual(400);
    expect(entry.status).toBeLessThan(600);
    expect(entry.title.length).toBeGreaterThan(3);
    expect(entry.description.length).toBeGreaterThan(40);
    // The code is the anchor: it must be a valid URL fragment without escaping.
    expect(code).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it('covers every status the API answers with', () => {
    const statuses = new Set(errorCodes.map((code) => errorCatalog[code].status));
    for (const status of [400, 401, 403, 404, 405, 406, 429, 431, 500, 503])
      expect(statuses).toContain(status);
  });

  it('renders an RFC 9457 problem document with the code as extension member', () => {
    const document = problemDocument(
      'https://rates.example.test',
      problem('rate-limited', 'wait 3 s', { 'violated-policies': ['default'] }),
      '/v1/rates',
    );
    expect(JSON.parse(document)).toMatchInlineSnapshot(`
      {
        "code": "rate-limited",
        "detail": "wait 3 s",
        "instance": "/v1/rates",
        "status": 429,
        "title": "Rate limit exceeded",
        "type": "https://rates.example.test/docs/errors#rate-limited",
        "violated-policies": [
          "default",
        ],
      }
    `);
  });
  it('is what the README Errors table lists: every code, under its status', () => {
    expect(Object.fromEntries(readmeErrorTable())).toEqual(
      Object.fromEntries(errorCodes.map((code) => [code, errorCatalog[code].status])),
    );
  });
});
