import Negotiator from 'negotiator';

/**
 * The website's languages (docs/architecture.md#website-languages). English pages live at the
 * root (`/docs`), Persian ones under `/fa` (`/fa/docs`); every page exists in both. Only `/`
 * chooses by `Accept-Language`: an explicit address always answers in its own language and is
 * never redirected, so a shared link shows what its sender saw.
 */
export type Language = 'en' | 'fa';

export const languages: readonly Language[] = ['en', 'fa'];

const prefixOf: Record<Language, string> = { en: '', fa: '/fa' };

/** The address of `path` (an English site path such as `/coins/BTC`) in `language`. */
export function pathIn(language: Language, path: string): string {
  const prefix = prefixOf[language];
  return prefix !== '' && path === '/' ? prefix : `${prefix}${path}`;
}

/** The language of `/` for a request's `Accept-Language` (RFC 9110 §12.5.4); English when neither is asked for. */
export function chooseHomeLanguage(acceptLanguage: string | undefined): Language {
  if (acceptLanguage === undefined) return 'en';
  // negotiator lists the available languages the client accepts, best first; `fa-IR` matches `fa`.
  const [best] = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages([...languages]);
  return best === 'fa' ? 'fa' : 'en';
}
