import { createHmac } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientNetwork } from '../../net/client-network.ts';
import type { KeyRequest } from '../../store/key-request.ts';
import type { KeyRequestStore } from '../../store/types.ts';
import { problem } from '../../web/error-catalog.ts';
import { languages, pathIn } from '../language.ts';
import { choosePageForm } from '../pages/page-form.ts';
import type { SendPage } from '../pages/send-page.ts';
import type { Page, PagesByLanguage, SitePages } from '../pages/site-pages.ts';
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
import { FormTokens, formCookieName, readCookie } from './form-token.ts';

export interface ContactOptions {
  /** The pages in every language; problem documents take the English words. */
  pages: PagesByLanguage;
  keyRequests: KeyRequestStore;
  /** Key of the form tokens and of the per-client hashes; shared by all instances. */
  formSecret: string | Buffer;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock: () => number;
  /** Key requests accepted from one client address per hour. */
  requestsPerHour: number;
  sendPage: SendPage;
  /**
   * Tells the operator of a stored request (the pending gauge, the webhook): returns at once and
   * never throws, so the requester's answer never waits on it.
   */
  announce: (request: KeyRequest) => void;
}

interface ContactAnswer {
  status: number;
  notice: string;
  values: FormValues;
  errors: FieldErrors;
}

const hourMs = 60 * 60 * 1000;
const hide = { schema: { hide: true } };

/**
 * The contact page in every language: the key-request form (GET), its submission (POST, stored
 * for the operator's `nerkh requests`) and the confirmation page it redirects to.
 */
export async function registerContactRoutes(app: FastifyInstance, options: ContactOptions): Promise<void> {
  const { keyRequests, clock, requestsPerHour, sendPage } = options;
  const { publicUrl } = options.pages.en;
  const englishWords = options.pages.en.words;
  const tokens = new FormTokens({ secret: options.formSecret, clock });
  const secureCookie = publicUrl.startsWith('https:') ? '; Secure' : '';

  // Form bodies are parsed only inside the site's plugin: the API itself accepts no body at all.
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  for (const language of languages) registerContact(options.pages[language]);

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
            tokenCheck === 'expired' ? englishWords.form.tokenExpired : englishWords.form.tokenMissing;
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
      const { values, errors } = validateForm(body, wantsJson ? englishWords : words);
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
          const detail = englishWords.form.tooManyRequests(String(requestsPerHour));
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
      options.announce(stored);
      // Post/Redirect/Get: reloading the confirmation page never submits the request twice.
      return reply.redirect(receivedUrl, 303);
    });
  }
}
