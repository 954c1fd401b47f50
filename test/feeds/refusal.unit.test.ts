import { describe, expect, it } from 'vitest';
import { httpErrorDetail, isRefusal } from '../../src/feeds/refusal.ts';

describe('isRefusal', () => {
  it('is a refusal for 451 and 403 only', () => {
    expect([451, 403].map(isRefusal)).toEqual([true, true]);
    expect([200, 401, 404, 418, 429, 500, 503].some(isRefusal)).toBe(false);
  });
});

describe('httpErrorDetail', () => {
  it("quotes Binance's geo-block message", () => {
    const body =
      '{"code":0,"msg":"Service unavailable from a restricted location according to \'b. Eligibility\' in https://www.binance.com/en/terms. Please contact customer service if you believe you received this message in error."}';
    expect(httpErrorDetail(451, body)).toBe(
      "HTTP 451: Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms. Please contact customer service if you believe you received this message in error.",
    );
  });

  it('takes the message field exchanges use, else the text, cut short and on one line', () => {
    expect(httpErrorDetail(403, '{"status":"failed","message":"Forbidden"}')).toBe('HTTP 403: Forbidden');
    expect(httpErrorDetail(403, '{"error":"ip banned"}')).toBe('HTTP 403: ip banned');
    expect(httpErrorDetail(502, '<html>\n  <h1>Bad Gateway</h1>\n</html>')).toBe(
      'HTTP 502: <html> <h1>Bad Gateway</h1> </html>',
    );
    expect(httpErrorDetail(451, 'x'.repeat(500))).toBe(`HTTP 451: ${'x'.repeat(200)}`);
    expect(httpErrorDetail(451, '')).toBe('HTTP 451 Unavailable For Legal Reasons');
    expect(httpErrorDetail(599, '')).toBe('HTTP 599');
  });
});
