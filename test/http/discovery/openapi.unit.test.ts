import { compileErrors, validate } from '@readme/openapi-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import rootPackage from '../../../package.json' with { type: 'json' };
import clientPackage from '../../../packages/client/package.json' with { type: 'json' };
import mcpPackage from '../../../packages/mcp/package.json' with { type: 'json' };
import { RatesResponseSchema } from '../../../src/domain/rates.ts';
import { ProblemSchema } from '../../../src/web/error-catalog.ts';
import { HealthSchema } from '../../../src/web/health-report.ts';
import { buildTestApp, publicUrl, type TestApp } from '../../support/test-app.ts';

let t: TestApp;
let body: string;
beforeAll(async () => {
  t = await buildTestApp();
  const response = await t.app.inject({ url: '/v1/openapi.json' });
  expect(response.statusCode).toBe(200);
  body = response.body;
});
afterAll(async () => {
  await t.app.close();
});

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<
    string,
    { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> }
  >;
}

describe('/v1/openapi.json, built by @fastify/swagger from the route schemas', () => {
  it('is served without a key, at /v1/openapi.json and /openapi.json, exactly as @fastify/swagger generates it', async () => {
    const response = await t.app.inject({ url: '/v1/openapi.json' });
    expect(response.headers['content-type']).toBe('application/openapi+json');
    expect((await t.app.inject({ url: '/openapi.json' })).body).toBe(body);
    expect(JSON.parse(body)).toEqual(JSON.parse(JSON.stringify(t.app.swagger())));
  });

  it('passes @readme/openapi-parser validation as OpenAPI 3.1', async () => {
    const result = await validate(JSON.parse(body));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('has no problem at all under Redocly’s minimal ruleset', async () => {
    const config = await createConfig({ extends: ['minimal'] });
    const problems = await lintFromString({
      source: body,
      absoluteRef: `${publicUrl}/v1/openapi.json`,
      config,
    });
    expect(problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  });

  it('describes version 1.0.0 of the API under the /v1 server, with the X-API-Key scheme', () => {
    const document = JSON.parse(body);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers).toEqual([{ url: `${publicUrl}/v1` }]);
    expect(document.components.securitySchemes).toEqual({
      ApiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
  });

  it("carries the repository's licence, the one both client packages are published under", () => {
    const { info } = JSON.parse(body) as { info: { license: unknown } };
    expect(info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(rootPackage.license).toBe('MIT');
    expect(clientPackage.license).toBe('MIT');
    expect(mcpPackage.license).toBe('MIT');
  });

  it('lists only the API operations, relative to the server URL', () => {
    const { paths } = JSON.parse(body) as { paths: Record<string, Record<string, Operation>> };
    expect(Object.keys(paths).sort()).toEqual(['/health', '/rates']);
    expect(Object.keys(paths['/rates'] ?? {})).toEqual(['get']);
    expect(Object.keys(paths['/health'] ?? {})).toEqual(['get']);
  });

  it('documents symbols= on /rates: its list syntax, the maximum, the order and that it counts once', () => {
    const { paths } = JSON.parse(body) as { paths: Record<string, Record<string, Operation>> };
    const parameter = (paths['/rates']?.get?.parameters ?? []).find((p) => p.name === 'symbols') as
      | (Operation['parameters'] & object)[number]
      | undefined;
    expect(parameter).toMatchObject({ in: 'query', required: false });
    const { schema, description } = parameter as unknown as {
      schema: { pattern: string };
      description?: string;
    };
    const text = `${description ?? ''} ${(schema as { description?: string }).description ?? ''}`;
    expect(text).toMatch(/at most 20 distinct/);
    expect(text).toMatch(/sorted by symbol/);
    expect(text).toMatch(/counts once/);
    const pattern = new RegExp(schema.pattern);
    expect(['BTC', 'btc,ETH,sol', 'A1,B2'].every((value) => pattern.test(value))).toBe(true);
    expect(['', 'BTC,', ',BTC', 'BTC,,ETH', 'BTC-USD', 'BTC ETH'].some((value) => pattern.test(value))).toBe(
      false,
    );
  });

  it('requires the key on /rates and declares /health public with security: []', () => {
    const { paths } = JSON.parse(body) as { paths: Record<string, Record<string, Operation>> };
    expect(paths['/rates']?.get?.security).toEqual([{ ApiKeyAuth: [] }]);
    expect(paths['/health']?.get?.security).toEqual([]);
  });

  it('documents /rates with its query parameter, every status it answers, and the 429 headers', () => {
    const { paths } = JSON.parse(body) as { paths: Record<string, Record<string, Operation>> };
    const rates = paths['/rates']?.get as Operation;
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
  });

  it('gives every error status a problem+json body', () => {
    const { paths } = JSON.parse(body) as { paths: Record<string, Record<string, Operation>> };
    for (const operation of [paths['/rates']?.get, paths['/health']?.get]) {
      const errors = Object.entries(operation?.responses ?? {}).filter(
        ([status]) => /^[45]/.test(status) && !(operation === paths['/health']?.get && status === '503'),
      );
      expect(errors.length).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        expect(Object.keys(response.content ?? {}), `${operation?.operationId} ${status}`).toEqual([
          'application/problem+json',
        ]);
      }
    }
  });

  it('carries realistic examples that match their own schemas', () => {
    const examples = (schema: TSchema) => (schema as { examples?: unknown[] }).examples ?? [];
    for (const schema of [RatesResponseSchema, HealthSchema, ProblemSchema]) {
      expect(examples(schema).length).toBeGreaterThan(0);
      for (const example of examples(schema)) expect(Value.Check(schema, example)).toBe(true);
    }
    const rates = examples(RatesResponseSchema)[0] as { rates: { name_fa: string; sell_irt: number }[] };
    expect(rates.rates[0]?.name_fa).toMatch(/[\u0600-\u06FF]/);
    expect(Number.isInteger(rates.rates[0]?.sell_irt)).toBe(true);
    expect(body).toContain('بیت‌کوین');
  });
});
