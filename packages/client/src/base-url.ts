/**
 * The service's `/v1` base from what the user configured: the site's origin
 * (`https://rates.example`) or its API base (`https://rates.example/v1`). A key must travel only
 * in `X-API-Key`: a base URL with credentials, a query string, or something shaped like a nerkh
 * key is refused, because URLs end up in logs and proxies (as the service itself refuses
 * `?key=`).
 */
const keyShape = /nerkh_[A-Za-z0-9]{6,}/;

export function apiBaseUrl(baseUrl: string, apiKey: string | undefined): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not an absolute URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl must be http: or https:, not ${url.protocol}`);
  }
  const carriesKey =
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    keyShape.test(decodeURIComponent(url.href)) ||
    (apiKey !== undefined && apiKey !== '' && decodeURIComponent(url.href).includes(apiKey));
  if (carriesKey) {
    throw new TypeError(
      'baseUrl must not carry a key, credentials, a query or a fragment: pass the key as apiKey (it is sent only in X-API-Key). A key that was placed in a URL should be treated as exposed.',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path.endsWith('/v1') ? path : `${path}/v1`}`;
}
