import { createHmac } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
  renderForm,
  tokenField,
  validateForm,
} from './contact-form.ts';
import { FormTokens, formCookieName, readCookie } from './form-token.ts';
import { renderSlotted } from './html-blocks.ts';
import { pageContentSecurityPolicy, renderLayout } from './layout.ts';
import { createMarkdownRenderer, estimateTokens } from './markdown.ts';
import { choosePageForm } from './negotiate.ts';
import { type Page, type SitePages, symbolPattern } from './pages.ts';

interface SiteOptions {
  /** The pages, shared with the discovery documents that include them. */
  pages: SitePages;
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
 * `/status`, `/terms`. Every page is one Markdown source; a request with `Accept: text/markdown`
 * gets that Markdown, everyone else the HTML rendered from it. The contact page stores key
 * requests for the operator (`nerkh requests`).
 */
export async function sitePlugin(app: FastifyInstance, options: SiteOptions): Promise<void> {
  const { pages, keyRequests } = options;
  const { publicUrl } = pages;
  const clock = options.clock ?? Date.now;
  const requestsPerHour = options.requestsPerHour ?? 5;
  const render = createMarkdownRenderer();
  const tokens = new FormTokens({ secret: options.formSecret, clock });
  const secureCookie = publicUrl.startsWith('https:') ? '; Secure' : '';

  // Form bodies are parsed only inside this plugin: the API itself accepts no body at all.
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  function sendPage(request: FastifyRequest, reply: FastifyReply, page: Page, formHtml = ''): FastifyReply {
    reply.code(page.status).header('Vary', 'Accept');
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-cache');
    if (choosePageForm(request.headers.accept) === 'markdown') {
      return reply
        .type(markdownType)
        .header('x-markdown-tokens', String(estimateTokens(page.markdown)))
        .send(page.markdown);
    }
    const html = renderLayout({
      publicUrl,
      path: pathOf(request.url),
      title: page.title,
      description: page.description,
      bodyHtml:
        (page.html === undefined ? render(page.markdown) : renderSlotted(render, page.html)) + formHtml,
      ...(page.navPath === undefined ? {} : { navPath: page.navPath }),
      ...(page.canonical === undefined ? {} : { canonical: page.canonical }),
    });
    return reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', pageContentSecurityPolicy)
      .send(html);
  }

  const hide = { schema: { hide: true } };

  app.get('/', hide, async (request, reply) => {
    // RFC 9727 §3: the api-catalog link relation on the publisher's home page.
    reply.header('Link', `<${publicUrl}/.well-known/api-catalog>; rel="api-catalog"`);
    return sendPage(request, reply, pages.overview());
  });
  app.get('/docs', hide, async (request, reply) => sendPage(request, reply, pages.docs()));
  app.get('/docs/errors', hide, async (request, reply) => sendPage(request, reply, pages.errors()));
  app.get<{ Querystring: CoinListQueryString }>(
    '/coins',
    { schema: { hide: true, querystring: CoinListQuerySchema }, attachValidation: true },
    async (request, reply) => {
      if (request.validationError) {
        throw problem(
          'invalid-request',
          `The coins list takes q (at most 40 characters, given once), sort (one of ${coinSortKeys.join(', ')}) and order (asc or desc).`,
        );
      }
      return sendPage(request, reply, await pages.coins(coinListQuery(request.query)));
    },
  );
  app.get<{ Params: { symbol: string } }>('/coins/:symbol', hide, async (request, reply) => {
    const { symbol } = request.params;
    const page = await pages.coin(symbol);
    if (page !== null) return sendPage(request, reply, page);
    // Programs asking for JSON get the API's problem document; people and agents get a page.
    if (choosePageForm(request.headers.accept) === 'json') {
      throw problem(
        'unknown-symbol',
        symbolPattern.test(symbol)
          ? `No listed currency has the symbol ${symbol.toUpperCase()}.`
          : 'No listed currency has this symbol.',
      );
    }
    return sendPage(request, reply, pages.coinNotFound(symbol));
  });
  app.get('/status', hide, async (request, reply) => sendPage(request, reply, await pages.status()));
  app.get('/terms', hide, async (request, reply) => sendPage(request, reply, pages.terms()));

  interface ContactAnswer {
    status: number;
    notice: string;
    values: FormValues;
    errors: FieldErrors;
  }

  function sendContact(request: FastifyRequest, reply: FastifyReply, answer: ContactAnswer): FastifyReply {
    const nonce = tokens.nonceFor(readCookie(request.headers.cookie, formCookieName));
    const maxAge = Math.floor(tokens.maxAgeMs / 1000);
    reply
      .header(
        'Set-Cookie',
        `${formCookieName}=${nonce}; Path=/contact; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secureCookie}`,
      )
      .header('Cache-Control', 'no-store');
    const page: Page = { ...pages.contact(answer.notice), status: answer.status };
    const formHtml = renderForm({
      action: `${publicUrl}/contact`,
      token: tokens.issue(nonce),
      values: answer.values,
      errors: answer.errors,
    });
    return sendPage(request, reply, page, formHtml);
  }

  app.get('/contact', hide, async (request, reply) =>
    sendContact(request, reply, { status: 200, notice: '', values: emptyValues, errors: {} }),
  );

  app.get('/contact/received', hide, async (request, reply) =>
    sendPage(request, reply, {
      status: 200,
      title: 'Request received',
      description: 'Your request for an API key was stored and will be reviewed.',
      markdown: pages.fill('contact-received'),
      navPath: '/contact',
      canonical: false,
    }),
  );

  app.post('/contact', { ...hide, bodyLimit: 16 * 1024 }, async (request, reply) => {
    const wantsJson = choosePageForm(request.headers.accept) === 'json';
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
      string,
      unknown
    >;

    const tokenCheck = tokens.check(body[tokenField], readCookie(request.headers.cookie, formCookieName));
    if (tokenCheck !== 'ok') {
      request.log.info({ reason: tokenCheck }, 'key request refused: form token');
      const detail =
        tokenCheck === 'expired'
          ? 'The form was loaded more than two hours ago. Load the contact page again and resubmit.'
          : 'The form was not loaded from this site in this browser session. Load the contact page again and resubmit; cookies must be enabled.';
      if (wantsJson) throw problem('form-token-invalid', detail);
      return sendContact(request, reply, {
        status: 403,
        notice: `## There is a problem\n\nYour request was not sent. ${detail}\n\n`,
        values: emptyValues,
        errors: {},
      });
    }

    // Bots fill every field; people never see this one. They get the same answer as a real
    // request, so the trap does not teach them to avoid it.
    const trap = body[honeypotField];
    if (trap !== undefined && trap !== '') {
      request.log.info('key request dropped: honeypot field filled');
      return reply.redirect(`${publicUrl}/contact/received`, 303);
    }

    const { values, errors } = validateForm(body);
    if (Object.keys(errors).length > 0) {
      if (wantsJson) throw problem('invalid-request', Object.values(errors).join(' '));
      return sendContact(request, reply, { status: 400, notice: errorNotice(errors), values, errors });
    }

    const clientHash = createHmac('sha256', options.formSecret)
      .update(`client:${request.ip}`)
      .digest('hex')
      .slice(0, 32);
    const nowMs = clock();
    const recent = await keyRequests.countKeyRequestsSince(
      clientHash,
      new Date(nowMs - hourMs).toISOString(),
    );
    if (recent >= requestsPerHour) {
      const retryAfter = String(hourMs / 1000);
      const detail = `This network has sent ${requestsPerHour} key requests in the last hour, the most the contact page accepts. Try again in an hour; requests already sent are being reviewed.`;
      if (wantsJson) throw problem('too-many-key-requests', detail, {}, { 'Retry-After': retryAfter });
      reply.header('Retry-After', retryAfter);
      return sendContact(request, reply, {
        status: 429,
        notice: `## There is a problem\n\nYour request was not sent. ${detail}\n\n`,
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
    return reply.redirect(`${publicUrl}/contact/received`, 303);
  });
}
