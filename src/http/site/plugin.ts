import { createHmac } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientNetwork } from '../../net/client-network.ts';
import type { KeyRequestStore } from '../../store/types.ts';
import { problem } from '../error-catalog.ts';
import { pathOf } from '../request-target.ts';
import {
  CoinListQuerySchema,
  type CoinListQueryString,
  coinListQuery,
  coinSortKeys,
} from './coin-list-query.ts';
import {
  emptyValues,
  errorNotice,
  type FieldErrors,
  type FormValues,
  honeypotField,
  problemNotice,
  renderForm,
  tokenField,
  validateForm,
} from './contact-form.ts';
import { fontPath, readFontFile } from './font.ts';
import { FormTokens, formCookieName, readCookie } from './form-token.ts';
import { renderSlotted } from './html-blocks.ts';
import { chooseHomeLanguage, type Language, languages, pathIn } from './language.ts';
import { languageAlternates, pageContentSecurityPolicy, renderLayout } from './layout.ts';
import { createMarkdownRenderer, estimateTokens } from './markdown.ts';
import { choosePageForm } from './negotiate.ts';
import { encodePage } from './page-coding.ts';
import { type Page, type PagesByLanguage, type SitePages, symbolPattern } from './pages.ts';

interface SiteOptions {
  /** The pages in every language; the English ones are shared with the discovery documents. */
  pages: PagesByLanguage;
  keyRequests: KeyRequestStore;
  /** Key of the form tokens and of the per-client hashes; shared by all instances. */
  formSecret: string | Buffer;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock?: () => number;
  /** Key requests accepted from one client address per hour (default 5). */
  requestsPerHour?: number;
}

const hourMs = 60 * 60 * 1000;
const markdownType = 'text/markdown; charset=utf-8';

/**
 * The website (docs/architecture.md#http-contract): `/`, `/docs`, `/docs/errors`, `/coins`, `/coins/{symbol}`, `/contact`,
 * `/status`, `/terms`, `/clients`, each in English and, under `/fa`, in Persian (docs/architecture.md#website-languages).
 * Every page is one Markdown source per language; a request with `Accept: text/markdown` gets that
 * Markdown, everyone else the HTML rendered from it. Every answer names its language
 * (`Content-Language`) and links its versions in the other languages (`Link` with `hreflang`).
 * Only `/` chooses its language, by `Accept-Language`; it says so with `Vary`. The contact page
 * stores key requests for the operator (`nerkh requests`).
 */
export async function sitePlugin(app: FastifyInstance, options: SiteOptions): Promise<void> {
  const { keyRequests } = options;
  const { publicUrl } = options.pages.en;
  const clock = options.clock ?? Date.now;
  const requestsPerHour = options.requestsPerHour ?? 5;
  const renderers = { en: createMarkdownRenderer('en'), fa: createMarkdownRenderer('fa') } satisfies Record<
    Language,
    unknown
  >;
  const tokens = new FormTokens({ secret: options.formSecret, clock });
  const secureCookie = publicUrl.startsWith('https:') ? '; Secure' : '';
  const font = readFontFile();

  // Form bodies are parsed only inside this plugin: the API itself accepts no body at all.
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  const hide = { schema: { hide: true } };

  // The font's URL names its version, so it never changes: cached for a year, never revalidated.
  app.get(fontPath, hide, async (_request, reply) =>
    reply.type('font/woff2').header('Cache-Control', 'public, max-age=31536000, immutable').send(font),
  );

  /**
   * Sends `page` (from `pages`, one language) as Markdown or HTML. `sitePath` is the page's English
   * path: the same page in every language is that path under the language's prefix.
   */
  function sendPage(
    request: FastifyRequest,
    reply: FastifyReply,
    pages: SitePages,
    page: Page,
    formHtml = '',
  ): FastifyReply {
    const sitePath = sitePathOf(pages.language, pathOf(request.url));
    const render = renderers[pages.language];
    reply.code(page.status).header('Content-Language', pages.language);
    if (!reply.hasHeader('Vary')) reply.header('Vary', 'Accept');
    reply.header('Vary', `${String(reply.getHeader('Vary'))}, Accept-Encoding`);
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-cache');
    if (page.canonical !== false) appendLink(reply, languageAlternates(publicUrl, sitePath));
    if (choosePageForm(request.headers.accept) === 'markdown') {
      return sendEncoded(
        request,
        reply.type(markdownType).header('x-markdown-tokens', String(estimateTokens(page.markdown))),
        page.markdown,
      );
    }
    const html = renderLayout({
      publicUrl,
      words: pages.words,
      sitePath,
      title: page.title,
      description: page.description,
      bodyHtml:
        (page.html === undefined ? render(page.markdown) : renderSlotted(render, page.html)) + formHtml,
      ...(page.navPath === undefined ? {} : { navPath: page.navPath }),
      ...(page.canonical === undefined ? {} : { canonical: page.canonical }),
    });
    return sendEncoded(
      request,
      reply.type('text/html; charset=utf-8').header('Content-Security-Policy', pageContentSecurityPolicy),
      html,
    );
  }

  function sendEncoded(request: FastifyRequest, reply: FastifyReply, body: string): FastifyReply {
    const { coding, bytes } = encodePage(body, request.headers['accept-encoding']);
    if (coding !== 'identity') reply.header('Content-Encoding', coding);
    return reply.send(bytes);
  }

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
    }
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
    registerContact(pages);
  }

  interface ContactAnswer {
    status: number;
    notice: string;
    values: FormValues;
    errors: FieldErrors;
  }

  function registerContact(pages: SitePages): void {
    const { words } = pages;
    const contactPath = pathIn(pages.language, '/contact');
    const receivedUrl = `${publicUrl}${pathIn(pages.language, '/contact/received')}`;

    function sendContact(request: FastifyRequest, reply: FastifyReply, answer: ContactAnswer): FastifyReply {
      const nonce = tokens.nonceFor(readCookie(request.headers.cookie, formCookieName));
      const maxAge = Math.floor(tokens.maxAgeMs / 1000);
      reply
        .header(
          'Set-Cookie',
          `${formCookieName}=${nonce}; Path=${contactPath}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secureCookie}`,
        )
        .header('Cache-Control', 'no-store');
      const page: Page = { ...pages.contact(answer.notice), status: answer.status };
      const formHtml = renderForm({
        action: `${publicUrl}${contactPath}`,
        token: tokens.issue(nonce),
        values: answer.values,
        errors: answer.errors,
        words,
      });
      return sendPage(request, reply, pages, page, formHtml);
    }

    app.get(contactPath, hide, async (request, reply) =>
      sendContact(request, reply, { status: 200, notice: '', values: emptyValues, errors: {} }),
    );

    app.get(`${contactPath}/received`, hide, async (request, reply) =>
      sendPage(request, reply, pages, pages.contactReceived()),
    );

    app.post(contactPath, { ...hide, bodyLimit: 16 * 1024 }, async (request, reply) => {
      const wantsJson = choosePageForm(request.headers.accept) === 'json';
      const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
        string,
        unknown
      >;

      const tokenCheck = tokens.check(body[tokenField], readCookie(request.headers.cookie, formCookieName));
      if (tokenCheck !== 'ok') {
        request.log.info({ reason: tokenCheck }, 'key request refused: form token');
        if (wantsJson) {
          const detail =
            tokenCheck === 'expired'
              ? options.pages.en.words.form.tokenExpired
              : options.pages.en.words.form.tokenMissing;
          throw problem('form-token-invalid', detail);
        }
        const detail = tokenCheck === 'expired' ? words.form.tokenExpired : words.form.tokenMissing;
        return sendContact(request, reply, {
          status: 403,
          notice: problemNotice(words, `${words.form.notSent} ${detail}`),
          values: emptyValues,
          errors: {},
        });
      }

      // Bots fill every field; people never see this one. They get the same answer as a real
      // request, so the trap does not teach them to avoid it.
      const trap = body[honeypotField];
      if (trap !== undefined && trap !== '') {
        request.log.info('key request dropped: honeypot field filled');
        return reply.redirect(receivedUrl, 303);
      }

      // Problem documents are the API's and stay English; the page answers in its own language.
      const { values, errors } = validateForm(body, wantsJson ? options.pages.en.words : words);
      if (Object.keys(errors).length > 0) {
        if (wantsJson) throw problem('invalid-request', Object.values(errors).join(' '));
        return sendContact(request, reply, {
          status: 400,
          notice: errorNotice(errors, words),
          values,
          errors,
        });
      }

      const clientHash = createHmac('sha256', options.formSecret)
        .update(`client:${clientNetwork(request.ip)}`)
        .digest('hex')
        .slice(0, 32);
      const nowMs = clock();
      const recent = await keyRequests.countKeyRequestsSince(
        clientHash,
        new Date(nowMs - hourMs).toISOString(),
      );
      if (recent >= requestsPerHour) {
        const retryAfter = String(hourMs / 1000);
        if (wantsJson) {
          const detail = options.pages.en.words.form.tooManyRequests(String(requestsPerHour));
          throw problem('too-many-key-requests', detail, {}, { 'Retry-After': retryAfter });
        }
        reply.header('Retry-After', retryAfter);
        return sendContact(request, reply, {
          status: 429,
          notice: problemNotice(
            words,
            `${words.form.notSent} ${words.form.tooManyRequests(words.integer(requestsPerHour))}`,
          ),
          values,
          errors: {},
        });
      }

      const stored = await keyRequests.createKeyRequest(
        {
          ...values,
          expected_use: values.expected_use === '' ? null : values.expected_use,
          client_hash: clientHash,
        },
        new Date(nowMs),
      );
      request.log.info({ key_request_id: stored.id }, 'key request stored');
      // Post/Redirect/Get: reloading the confirmation page never submits the request twice.
      return reply.redirect(receivedUrl, 303);
    });
  }
}

/** The English path of a request path in `language` (`/fa/coins/BTC` → `/coins/BTC`, `/fa` → `/`). */
function sitePathOf(language: Language, requestPath: string): string {
  const prefix = pathIn(language, '/');
  if (language === 'en' || !requestPath.startsWith(prefix)) return requestPath;
  return requestPath.slice(prefix.length) || '/';
}

/** Adds members to the response's `Link` field (RFC 8288 §3: one field, comma-separated). */
function appendLink(reply: FastifyReply, members: string): void {
  const existing = reply.getHeader('Link');
  reply.header('Link', existing === undefined ? members : `${String(existing)}, ${members}`);
}
