import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, publicUrl, type TestApp } from './fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.ready();
});
afterAll(async () => {
  await t.app.close();
});

type Operation = {
  security?: unknown[];
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
};

describe('OpenAPI document built from the route schemas', () => {
  it('is a valid OpenAPI 3.1 document, version 1.0.0, served under {public_url}/v1', async () => {
    const document = structuredClone(t.app.swagger()) as Record<string, unknown>;
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(document).toMatchObject({
      openapi: '3.1.0',
      info: { version: '1.0.0' },
      servers: [{ url: `${publicUrl}/v1` }],
    });
  });

  it('documents /rates with its key requirement, parameters and every status incl. problem bodies', () => {
    const paths = t.app.swagger().paths as Record<string, Record<string, Operation>>;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/health', '/rates']));
    const rates = paths['/rates']?.get as Operation;
    expect(rates.security).toEqual([{ ApiKeyAuth: [] }]);
    expect(rates.parameters?.map((p) => `${p.in}:${p.name}`)).toContain('query:symbol');
    expect(Object.keys(rates.responses).sort()).toEqual([
      '200',
      '304',
      '400',
      '401',
      '403',
      '404',
      '429',
      '503',
    ]);
    for (const status of ['400', '401', '403', '404', '429', '503']) {
      expect(Object.keys(rates.responses[status]?.content ?? {})).toEqual(['application/problem+json']);
    }
    expect(Object.keys(rates.responses['429']?.headers ?? {})).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']),
    );
    expect(paths['/health']?.get?.security).toEqual([]);
  });
});
