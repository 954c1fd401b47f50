import type { FastifyInstance } from 'fastify';
import type { KeyRequestIntake } from '../key-requests/key-request-intake.ts';
import { problem } from '../web/error-catalog.ts';
import {
  CoinListQuerySchema,
  type CoinListQueryString,
  coinListQuery,
  coinSortKeys,
} from './coin-list/coin-list-query.ts';
import { registerContactRoutes } from './contact/contact-routes.ts';
import { fontPath, readFontFile } from './font.ts';
import { chooseHomeLanguage, languages, pathIn } from './language.ts';
import { choosePageForm } from './pages/page-form.ts';
import { createPageSender } from './pages/send-page.ts';
import { type PagesByLanguage, symbolPattern } from './pages/site-pages.ts';

interface SiteOptions {
  /** The pages in every language; the English ones are shared with the discovery documents. */
  pages: PagesByLanguage;
  /** Stores the contact form's key requests for the operator (../key-requests/key-request-intake.ts). */
  keyRequests: KeyRequestIntake;
  /** Key of the contact form's tokens; shared by all instances. */
  formSecret: string | Buffer;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock?: () => number;
}

/**
 * The website (docs/architecture.md#the-website): `/`, `/docs`, `/docs/errors`, `/coins`, `/coins/{symbol}`, `/contact`,
 * `/status`, `/terms`, `/clients`, each in English and, under `/fa`, in Persian (docs/architecture.md#website-languages).
 * Every page is one Markdown source per language; a request with `Accept: text/markdown` gets that
 * Markdown, everyone else the HTML rendered from it (./pages/send-page.ts). Only `/` chooses its
 * language, by `Accept-Language`; it says so with `Vary`. The contact page stores key requests for
 * the operator (`nerkh requests`; ./contact/contact-routes.ts).
 */
export async function sitePlugin(app: FastifyInstance, options: SiteOptions): Promise<void> {
  const { publicUrl } = options.pages.en;
  const sendPage = createPageSender(publicUrl);
  const font = readFontFile();

  const hide = { schema: { hide: true } };

  // Crawlers may read every page; the API under /v1/ is for programs with a key (RFC 9309).
  app.get('/robots.txt', hide, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').header('Cache-Control', 'public, max-age=86400').send(robotsTxt),
  );

  /**
   * `/fa/`, `/coins/` and the like are what people type and link: each page's address with a
   * trailing slash answers 301 with the canonical address, its query kept. Only the site's pages:
   * the API's paths stay exactly as content/docs.md defines them.
   */
  const redirectTrailingSlash = (path: string) => {
    app.get(`${path}/`, hide, async (request, reply) => {
      const queryAt = request.url.indexOf('?');
      const [pathname, search] =
        queryAt === -1 ? [request.url, ''] : [request.url.slice(0, queryAt), request.url.slice(queryAt)];
      return reply.redirect(`${publicUrl}${pathname.replace(/\/+$/, '')}${search}`, 301);
    });
  };

  // The font's URL names its version, so it never changes: cached for a year, never revalidated.
  app.get(fontPath, hide, async (_request, reply) =>
    reply.type('font/woff2').header('Cache-Control', 'public, max-age=31536000, immutable').send(font),
  );

  // `/` is the only address whose language depends on the request: never a redirect, so the
  // answer varies by Accept-Language as well, and caches keep the versions apart.
  app.get('/', hide, async (request, reply) => {
    const pages = options.pages[chooseHomeLanguage(request.headers['accept-language'])];
    // RFC 9727 §3: the api-catalog link relation on the publisher's home page.
    reply.header('Link', `<${publicUrl}/.well-known/api-catalog>; rel="api-catalog"`);
    reply.header('Vary', 'Accept, Accept-Language');
    return sendPage(request, reply, pages, pages.overview());
  });

  for (const language of languages) {
    const pages = options.pages[language];
    const at = (path: string) => pathIn(language, path);
    if (language !== 'en') {
      app.get(at('/'), hide, async (request, reply) => {
        reply.header('Link', `<${publicUrl}/.well-known/api-catalog>; rel="api-catalog"`);
        return sendPage(request, reply, pages, pages.overview());
      });
      redirectTrailingSlash(at('/'));
    }
    for (const path of [
      '/docs',
      '/docs/errors',
      '/coins',
      '/coins/:symbol',
      '/status',
      '/terms',
      '/clients',
    ]) {
      redirectTrailingSlash(at(path));
    }
    for (const path of ['/contact', '/contact/received']) redirectTrailingSlash(at(path));
    app.get(at('/docs'), hide, async (request, reply) => sendPage(request, reply, pages, pages.docs()));
    app.get(at('/docs/errors'), hide, async (request, reply) =>
      sendPage(request, reply, pages, pages.errors()),
    );
    app.get<{ Querystring: CoinListQueryString }>(
      at('/coins'),
      { schema: { hide: true, querystring: CoinListQuerySchema }, attachValidation: true },
      async (request, reply) => {
        if (request.validationError) {
          throw problem(
            'invalid-request',
            `The coins list takes q (at most 40 characters, given once), sort (one of ${coinSortKeys.join(', ')}) and order (asc or desc).`,
          );
        }
        return sendPage(request, reply, pages, await pages.coins(coinListQuery(request.query)));
      },
    );
    app.get<{ Params: { symbol: string } }>(at('/coins/:symbol'), hide, async (request, reply) => {
      const { symbol } = request.params;
      const page = await pages.coin(symbol);
      if (page !== null) return sendPage(request, reply, pages, page);
      // Programs asking for JSON get the API's problem document; people and agents get a page.
      if (choosePageForm(request.headers.accept) === 'json') {
        throw problem(
          'unknown-symbol',
          symbolPattern.test(symbol)
            ? `No listed currency has the symbol ${symbol.toUpperCase()}.`
            : 'No listed currency has this symbol.',
        );
      }
      return sendPage(request, reply, pages, pages.coinNotFound(symbol));
    });
    app.get(at('/status'), hide, async (request, reply) =>
      sendPage(request, reply, pages, await pages.status()),
    );
    app.get(at('/terms'), hide, async (request, reply) => sendPage(request, reply, pages, pages.terms()));
    app.get(at('/clients'), hide, async (request, reply) => sendPage(request, reply, pages, pages.clients()));
  }

  await registerContactRoutes(app, {
    pages: options.pages,
    keyRequests: options.keyRequests,
    formSecret: options.formSecret,
    clock: options.clock ?? Date.now,
    sendPage,
  });
}

const robotsTxt = `User-agent: *
Allow: /
Disallow: /v1/
`;
