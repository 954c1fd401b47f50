import { describe, expect, it } from 'vitest';
import { errorCatalog, errorCodes, problem, problemDocument } from '../../src/web/error-catalog.ts';

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
});
