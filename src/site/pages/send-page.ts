import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathOf } from '../../web/request-target.ts';
import { type Language, pathIn } from '../language.ts';
import { renderSlotted } from './html-blocks.ts';
import { languageAlternates, pageContentSecurityPolicy, renderLayout } from './layout.ts';
import { createMarkdownRenderer, estimateTokens } from './markdown.ts';
import { encodePage } from './page-coding.ts';
import { choosePageForm } from './page-form.ts';
import type { Page, SitePages } from './site-pages.ts';

/**
 * Sends `page` (from `pages`, one language) as Markdown or HTML, with `formHtml` after its body.
 * The page's English path (the same page in every language is that path under the language's
 * prefix) is read from the request.
 */
export type SendPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  pages: SitePages,
  page: Page,
  formHtml?: string,
) => FastifyReply;

const markdownType = 'text/markdown; charset=utf-8';

/**
 * Page sending for every site route: a request with `Accept: text/markdown` gets the page's
 * Markdown, everyone else the HTML rendered from it, compressed as the client accepts. Every answer
 * names its language (`Content-Language`) and links its versions in the other languages (`Link`
 * with `hreflang`).
 */
export function createPageSender(publicUrl: string): SendPage {
  const renderers = { en: createMarkdownRenderer('en'), fa: createMarkdownRenderer('fa') } satisfies Record<
    Language,
    unknown
  >;

  return function sendPage(request, reply, pages, page, formHtml = '') {
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
  };
}

function sendEncoded(request: FastifyRequest, reply: FastifyReply, body: string): FastifyReply {
  const { coding, bytes } = encodePage(body, request.headers['accept-encoding']);
  if (coding !== 'identity') reply.header('Content-Encoding', coding);
  return reply.send(bytes);
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
