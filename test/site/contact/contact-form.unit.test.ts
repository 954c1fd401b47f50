import { afterEach, describe, expect, it } from 'vitest';
import { buildSite, publicUrl, type SiteFixture } from '../../support/site-fixture.ts';

let site: SiteFixture;
afterEach(async () => {
  await site?.app.close();
});

interface LoadedForm {
  token: string;
  cookie: string;
  html: string;
}

async function loadForm(remoteAddress = '203.0.113.7', path = '/contact'): Promise<LoadedForm> {
  const response = await site.app.inject({ method: 'GET', url: path, remoteAddress });
  const setCookie = String(response.headers['set-cookie']);
  const cookie = setCookie.split(';')[0] as string;
  const token = /name="csrf_token" value="([^"]+)"/.exec(response.body)?.[1];
  if (!token) throw new Error('form has no token');
  return { token, cookie, html: response.body };
}

const valid = {
  name: 'Sara Ahmadi',
  org: 'Kavir Analytics',
  email: 'sara@kavir.example',
  purpose: 'Show toman prices of coins in our portfolio app',
  expected_use: 'One request per minute from one server',
};

function post(
  fields: Record<string, string | string[]>,
  options: { cookie?: string; accept?: string; remoteAddress?: string; path?: string } = {},
) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  }
  return site.app.inject({
    method: 'POST',
    url: options.path ?? '/contact',
    remoteAddress: options.remoteAddress ?? '203.0.113.7',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.accept ? { accept: options.accept } : {}),
    },
    payload: body.toString(),
  });
}

async function submit(
  fields: Record<string, string | string[]>,
  options: { remoteAddress?: string; accept?: string; path?: string } = {},
) {
  const form = await loadForm(options.remoteAddress, options.path);
  return post({ ...fields, csrf_token: form.token, website: '' }, { ...options, cookie: form.cookie });
}

describe('the key request form', () => {
  it('labels every control and ties hints to them', async () => {
    site = await buildSite();
    const { html } = await loadForm();
    const controls = [...html.matchAll(/<(input|textarea)\b([^>]*)>/g)].map((match) => match[2] as string);
    const visible = controls.filter(
      (attributes) => !/type="hidden"/.test(attributes) && !/id="website"/.test(attributes),
    );
    expect(visible).toHaveLength(5);
    for (const attributes of visible) {
      const id = /id="([^"]+)"/.exec(attributes)?.[1];
      expect(html).toContain(`<label for="${id}">`);
      expect(attributes).toContain(`aria-describedby="${id}-hint"`);
    }
    expect(html).toContain(`<form method="post" action="${publicUrl}/contact"`);
  });

  it('sets the form cookie HttpOnly, SameSite=Strict, Secure on an https site, and only for /contact', async () => {
    site = await buildSite();
    const response = await site.app.inject({ method: 'GET', url: '/contact' });
    expect(response.headers['set-cookie']).toMatch(
      /^nerkh_form=[A-Za-z0-9_-]{22}; Path=\/contact; Max-Age=7200; HttpOnly; SameSite=Strict; Secure$/,
    );
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('stores a valid request and redirects to a page that says what happens next', async () => {
    site = await buildSite();
    const response = await submit(valid);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${publicUrl}/contact/received`);
    const stored = await site.keyRequests.listKeyRequests();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ ...valid, status: 'pending', created_at: '2025-06-01T10:24:00.000Z' });
    expect(stored[0]?.client_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(stored[0]?.client_hash).not.toContain('203.0.113.7');
    const received = await site.app.inject({
      method: 'GET',
      url: '/contact/received',
      headers: { accept: 'text/markdown' },
    });
    expect(received.body).toContain('## What happens next');
    expect(received.body).toContain('the key is sent to the email address you gave');
  });

  it('stores the optional expected use as null when left empty', async () => {
    site = await buildSite();
    await submit({ ...valid, expected_use: '   ' });
    expect((await site.keyRequests.listKeyRequests())[0]?.expected_use).toBeNull();
  });
});

describe('validation', () => {
  it('refuses missing required fields with a message per field, keeping what was typed', async () => {
    site = await buildSite();
    const response = await submit({ name: '', org: 'Kavir', email: '', purpose: '' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('<title>Error: Request an API key · nerkh</title>');
    expect(response.body).toContain('<a href="#name">Enter your name.</a>');
    expect(response.body).toContain('<a href="#email">Enter your email address.</a>');
    expect(response.body).toContain('<a href="#purpose">Enter the purpose of the key.</a>');
    expect(response.body).toMatch(
      /id="name" name="name"[^>]*aria-describedby="name-hint name-error"[^>]*aria-invalid="true"/,
    );
    expect(response.body).toContain('value="Kavir"');
    expect(await site.keyRequests.listKeyRequests()).toEqual([]);
  });

  it('enforces length limits on every field', async () => {
    site = await buildSite();
    const tooLong = {
      name: 'n'.repeat(101),
      org: 'o'.repeat(201),
      email: `${'e'.repeat(196)}@x.ir`,
      purpose: 'p'.repeat(501),
      expected_use: 'u'.repeat(501),
    };
    const response = await submit(tooLong, { accept: 'text/markdown' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Your name must be 100 characters or fewer.');
    expect(response.body).toContain('Your organisation must be 200 characters or fewer.');
    expect(response.body).toContain('Your email address must be 200 characters or fewer.');
    expect(response.body).toContain('The purpose of the key must be 500 characters or fewer.');
    expect(response.body).toContain('The expected use must be 500 characters or fewer.');
    expect((await submit({ ...valid, name: 'n'.repeat(100) })).statusCode).toBe(303);
  });

  it('counts characters (as the browser’s maxlength does), not bytes, so Persian text gets the same limit', async () => {
    site = await buildSite();
    expect((await submit({ ...valid, name: 'س'.repeat(100) })).statusCode).toBe(303);
  });

  it('refuses an invalid email, a repeated field and control characters', async () => {
    site = await buildSite();
    const response = await submit({
      ...valid,
      email: 'not-an-email',
      name: ['A', 'B'],
      org: 'Evil\u001b[2JCorp',
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Enter an email address like name@example.com.');
    expect(response.body).toContain('Give your name once.');
    expect(response.body).toContain('Your organisation contains characters that are not allowed.');
  });

  it('answers JSON clients with an invalid-request problem', async () => {
    site = await buildSite();
    const response = await submit({ ...valid, email: 'nope' }, { accept: 'application/json' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'invalid-request', status: 400 });
  });

  it('refuses a body over 16 KiB with a problem document', async () => {
    site = await buildSite();
    const response = await submit({ ...valid, purpose: 'x'.repeat(17 * 1024) });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'payload-too-large' });
  });
});

describe('XSS', () => {
  const script = '<script>alert(1)</script>';
  const attack = {
    name: `${script}"><img src=x onerror=alert(1)>`,
    org: `${script}'`,
    email: `${script}@x.ir`,
    purpose: `${script} [link](javascript:alert(1)) **bold**`,
    expected_use: `${script}\n<iframe src="javascript:alert(1)">`,
  };

  it('escapes submitted values when the form is shown again', async () => {
    site = await buildSite();
    const response = await submit(attack);
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toMatch(/<script|<img|<iframe|javascript:alert\(1\)">/i);
    expect(response.body).toContain(
      'value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"',
    );
    expect(response.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;iframe');
  });

  it('stores what was typed as data, and no page shows it', async () => {
    site = await buildSite();
    const response = await submit({ ...attack, email: 'sara@kavir.example' });
    expect(response.statusCode).toBe(303);
    const [stored] = await site.keyRequests.listKeyRequests();
    expect(stored?.name).toBe(attack.name);
    for (const path of ['/contact', '/contact/received', '/']) {
      const page = await site.app.inject({ method: 'GET', url: path });
      expect(page.body).not.toContain('alert(1)');
    }
  });
});

describe('CSRF', () => {
  it('refuses a submission without the token', async () => {
    site = await buildSite();
    const form = await loadForm();
    const response = await post(valid, { cookie: form.cookie });
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('Your request was not sent.');
    expect(await site.keyRequests.listKeyRequests()).toEqual([]);
  });

  it('refuses a submission without the cookie (a cross-site post never carries a Strict cookie)', async () => {
    site = await buildSite();
    const form = await loadForm();
    expect((await post({ ...valid, csrf_token: form.token })).statusCode).toBe(403);
    expect(await site.keyRequests.listKeyRequests()).toEqual([]);
  });

  it('refuses a forged token and a token from another browser session', async () => {
    site = await buildSite();
    const mine = await loadForm();
    const theirs = await loadForm();
    const [version, issued, nonce] = mine.token.split('.');
    const forged = `${version}.${issued}.${nonce}.${'A'.repeat(43)}`;
    expect((await post({ ...valid, csrf_token: forged }, { cookie: mine.cookie })).statusCode).toBe(403);
    expect((await post({ ...valid, csrf_token: theirs.token }, { cookie: mine.cookie })).statusCode).toBe(
      403,
    );
    const swappedNonce = `${version}.${issued}.${theirs.cookie.split('=')[1]}.${mine.token.split('.')[3]}`;
    expect((await post({ ...valid, csrf_token: swappedNonce }, { cookie: theirs.cookie })).statusCode).toBe(
      403,
    );
    expect(await site.keyRequests.listKeyRequests()).toEqual([]);
  });

  it('refuses a token older than two hours, and accepts one just younger', async () => {
    site = await buildSite();
    const old = await loadForm();
    site.advance(2 * 60 * 60 * 1000 + 1000);
    const expired = await post(
      { ...valid, csrf_token: old.token },
      { cookie: old.cookie, accept: 'application/json' },
    );
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toMatchObject({
      code: 'form-token-invalid',
      type: `${publicUrl}/docs/errors#form-token-invalid`,
      detail: 'The form was loaded more than two hours ago. Load the contact page again and resubmit.',
    });
    const fresh = await loadForm();
    site.advance(2 * 60 * 60 * 1000 - 1000);
    expect((await post({ ...valid, csrf_token: fresh.token }, { cookie: fresh.cookie })).statusCode).toBe(
      303,
    );
  });

  it('keeps one nonce per browser, so two open forms can both be sent', async () => {
    site = await buildSite();
    const first = await loadForm();
    const second = await site.app.inject({
      method: 'GET',
      url: '/contact',
      headers: { cookie: first.cookie },
    });
    const secondToken = /name="csrf_token" value="([^"]+)"/.exec(second.body)?.[1] as string;
    expect((await post({ ...valid, csrf_token: first.token }, { cookie: first.cookie })).statusCode).toBe(
      303,
    );
    expect((await post({ ...valid, csrf_token: secondToken }, { cookie: first.cookie })).statusCode).toBe(
      303,
    );
  });
});

describe('abuse limits', () => {
  it('drops a submission that fills the honeypot, answering as if it were stored', async () => {
    site = await buildSite();
    const form = await loadForm();
    const response = await post(
      { ...valid, website: 'http://spam.example', csrf_token: form.token },
      { cookie: form.cookie },
    );
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${publicUrl}/contact/received`);
    expect(await site.keyRequests.listKeyRequests()).toEqual([]);
  });

  it('accepts 5 requests an hour from one address, then answers 429 with Retry-After', async () => {
    site = await buildSite();
    for (let index = 0; index < 5; index++) expect((await submit(valid)).statusCode).toBe(303);
    const refused = await submit(valid);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('3600');
    expect(refused.body).toContain('Your request was not sent.');
    const json = await submit(valid, { accept: 'application/json' });
    expect(json.json()).toMatchObject({ code: 'too-many-key-requests', status: 429 });
    expect(await site.keyRequests.listKeyRequests()).toHaveLength(5);

    expect((await submit(valid, { remoteAddress: '198.51.100.4' })).statusCode).toBe(303);
    site.advance(60 * 60 * 1000 + 1);
    expect((await submit(valid)).statusCode).toBe(303);
  });

  it('counts an IPv6 client by its /64, so rotating addresses within it does not lift the limit', async () => {
    site = await buildSite();
    for (let index = 1; index <= 5; index++) {
      expect((await submit(valid, { remoteAddress: `2001:db8:7:1::${index}` })).statusCode).toBe(303);
    }
    expect((await submit(valid, { remoteAddress: '2001:db8:7:1:ffff::9' })).statusCode).toBe(429);
    expect((await submit(valid, { remoteAddress: '2001:db8:7:2::1' })).statusCode).toBe(303);
  });

  it('ignores fields the form does not have: a submission cannot set what the server decides', async () => {
    site = await buildSite();
    const response = await submit({
      ...valid,
      status: 'approved',
      client_hash: 'chosen',
      id: 'req_chosen',
      created_at: '2000-01-01T00:00:00Z',
    });
    expect(response.statusCode).toBe(303);
    const [stored] = await site.keyRequests.listKeyRequests();
    expect(stored?.status).toBe('pending');
    expect(stored?.id).not.toBe('req_chosen');
    expect(stored?.client_hash).not.toBe('chosen');
    expect(stored?.created_at).not.toBe('2000-01-01T00:00:00Z');
  });

  it('refuses a body over 16 KiB with 413 and stores nothing', async () => {
    site = await buildSite();
    const response = await submit({ ...valid, purpose: 'x'.repeat(17 * 1024) });
    expect(response.statusCode).toBe(413);
    expect(await site.keyRequests.listKeyRequests()).toEqual([]);
  });
});

describe('the Persian form', () => {
  it('answers in Persian, keeps its cookie on /fa/contact and redirects to the Persian confirmation', async () => {
    site = await buildSite();
    const form = await loadForm(undefined, '/fa/contact');
    expect(form.html).toContain('<label for="email">ایمیل</label>');
    expect(form.html).toContain(`action="${publicUrl}/fa/contact"`);
    const refused = await submit({ ...valid, email: 'not-an-email' }, { path: '/fa/contact' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<html lang="fa" dir="rtl">');
    expect(refused.body).toContain('خطا: نشانی ایمیلی مانند name@example.com وارد کنید.');
    expect(refused.body).toContain('<h2 id="مشکلی-هست">مشکلی هست</h2>');
    const loaded = await site.app.inject({ method: 'GET', url: '/fa/contact' });
    expect(String(loaded.headers['set-cookie'])).toContain('Path=/fa/contact;');
    const sent = await submit(valid, { path: '/fa/contact' });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`${publicUrl}/fa/contact/received`);
    expect((await site.keyRequests.listKeyRequests()).map((request) => request.email)).toEqual([valid.email]);
  });
});
