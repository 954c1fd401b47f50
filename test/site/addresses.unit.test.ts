import { describe, expect, it } from 'vitest';
import { pagePaths, persianPagePaths, publicUrl, sitePerTest } from '../support/site-fixture.ts';

const { get, fixture } = sitePerTest();

describe('addresses people type', () => {
  it.each([
    ['/fa/', '/fa'],
    ['/docs/', '/docs'],
    ['/coins/', '/coins'],
    ['/coins/BTC/', '/coins/BTC'],
    ['/fa/coins/btc/', '/fa/coins/btc'],
    ['/fa/docs/errors/', '/fa/docs/errors'],
    ['/contact/', '/contact'],
    ['/coins/?q=bitcoin&sort=name', '/coins?q=bitcoin&sort=name'],
  ])('%s answers 301 with its canonical address %s', async (typed, canonical) => {
    const response = await get(typed);
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe(`${publicUrl}${canonical}`);
  });

  it('redirects every page of both languages with a trailing slash, and HEAD too', async () => {
    for (const path of [...pagePaths, ...persianPagePaths].filter((each) => each !== '/')) {
      const response = await get(`${path}/`);
      expect(response.statusCode, path).toBe(301);
      expect(response.headers.location, path).toBe(`${publicUrl}${path}`);
    }
    const head = await fixture()?.app.inject({ method: 'HEAD', url: '/fa/' });
    expect(head?.statusCode).toBe(301);
    expect(head?.headers.location).toBe(`${publicUrl}/fa`);
  });

  it('leaves the API paths alone: /v1/rates/ is not an address the API has', async () => {
    const response = await get('/v1/rates/');
    expect(response.statusCode).toBe(404);
    expect(response.headers.location).toBeUndefined();
  });
});

describe('robots.txt', () => {
  it('lets crawlers read the pages and keeps them off the API', async () => {
    const response = await get('/robots.txt');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('User-agent: *\nAllow: /\nDisallow: /v1/\n');
  });
});
