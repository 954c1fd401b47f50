import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type KeyRequestIntake, keyRequestWindowSeconds } from '../../key-requests/key-request-intake.ts';
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
  /** Stores a submitted request for the operator, within its client's hourly limit. */
  keyRequests: KeyRequestIntake;
  /** Key of the form tokens; shared by all instances. */
  formSecret: string | Buffer;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock: () => number;
  sendPage: SendPage;
}

interface ContactAnswer {
  status: number;
  notice: string;
  values: FormValues;
  errors: FieldErrors;
}

const hide = { schema: { hide: true } };

/**
 * The contact page in every language: the key-request form (GET), its submission (POST, stored
 * for the operator's `nerkh requests`) and the confirmation page it redirects to.
 */
export async function registerContactRoutes(app: FastifyInstance, options: ContactOptions): Promise<void> {
  const { keyRequests, clock, sendPage } = options;
  const { requestsPerHour } = keyRequests;
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

      const stored = await keyRequests.submit(
        { ...values, expected_use: values.expected_use === '' ? null : values.expected_use },
        request.ip,
      );
      if (stored === null) {
        const retryAfter = String(keyRequestWindowSeconds);
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

      request.log.info({ key_request_id: stored.id }, 'key request stored');
      // Post/Redirect/Get: reloading the confirmation page never submits the request twice.
      return reply.redirect(receivedUrl, 303);
    });
  }
}
