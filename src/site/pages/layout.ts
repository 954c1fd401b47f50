import { createHash } from 'node:crypto';
import { chartStylesheet } from '../charts/chart-style.ts';
import { coinListStylesheet } from '../coin-list/coin-list-html.ts';
import { fontPath } from '../font.ts';
import { type Language, languages, pathIn } from '../language.ts';
import type { SiteWords } from '../words/site-words.ts';
import { wordsOf } from '../words/words-of.ts';
import { escapeHtml } from './markdown.ts';

/**
 * The one HTML layout of the website, in either language. Styles are inline; the only other asset
 * is the Persian font, served by this app (./font.ts), so the site makes no outside requests and
 * works offline. There is no script at all. The Content-Security-Policy allows exactly this
 * stylesheet by its hash and fonts from the site itself, so injected markup could neither run nor style.
 *
 * Right-to-left: Persian pages are `lang="fa" dir="rtl"`; the stylesheet uses logical properties
 * (`inline-start`, `text-align:start`), so the same rules mirror the layout, while code blocks and
 * inline code stay left-to-right isolates.
 *
 * Accessibility: `lang` and `dir` of the page's language, a skip link, landmarks (header/nav/main/footer), `aria-current` on
 * the current page, a visible focus ring, colours with at least 4.5:1 contrast in both light and
 * dark schemes, mobile-first layout that reflows down to 320 px (WCAG 1.4.10).
 */

const stylesheet = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1e23;--muted:#4a5260;--line:#d5d9e0;--soft:#f3f5f8;--link:#0a55c4;--focus:#b34a00;--ok:#126b2f;--warn:#8a5300;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e9ecf1;--muted:#b4bcc8;--line:#3a414c;--soft:#1b2027;--link:#8cb8ff;--focus:#ffb86b;--ok:#7ad79a;--warn:#ffcc73;--bad:#ff9d96}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
@font-face{font-family:Vazirmatn;src:url("${fontPath}") format("woff2");font-weight:100 900;font-display:optional;unicode-range:U+0600-06FF,U+200C-200F,U+FB50-FDFF,U+FE70-FEFF}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",Vazirmatn,Tahoma,sans-serif;overflow-wrap:break-word}
a{color:var(--link);text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip-link{position:absolute;inset-inline-start:.5rem;top:-4rem;padding:.5rem 1rem;background:var(--fg);color:var(--bg);z-index:10;border-radius:.25rem}
.skip-link:focus{top:.5rem}
.site-header,.site-footer,main{max-width:52rem;margin:0 auto;padding:0 1rem}
.site-header{padding-top:.75rem;padding-bottom:.5rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.25rem;text-decoration:none;color:var(--fg);display:inline-flex;align-items:baseline;gap:.4rem}
.brand span{font-weight:400;color:var(--muted)}
.language-switch a{display:inline-block;padding:.35rem 0;min-height:44px;line-height:2;font-weight:600}
nav ul{list-style:none;margin:.5rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a{display:inline-block;padding:.35rem 0;min-height:44px;line-height:2}
nav a[aria-current="page"]{font-weight:700;text-decoration-thickness:3px}
main{padding-top:1rem;padding-bottom:2rem}
main:focus{outline:none}
h1{font-size:1.75rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.35rem;line-height:1.3;margin:2rem 0 .75rem;padding-top:.5rem;border-top:1px solid var(--line)}
h3{font-size:1.1rem;margin:1.5rem 0 .5rem}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,Vazirmatn,monospace;font-size:.9em;direction:ltr;unicode-bidi:isolate}
pre{text-align:left}
code{background:var(--soft);padding:.1em .3em;border-radius:.25rem}
pre{background:var(--soft);border:1px solid var(--line);border-radius:.375rem;padding:.75rem;overflow-x:auto;line-height:1.45}
pre code{background:none;padding:0}
blockquote{margin:1rem 0;padding:.5rem 1rem;border-inline-start:4px solid var(--line);color:var(--muted)}
.table-scroll{position:relative;overflow-x:auto;margin:1rem 0;border:1px solid var(--line);border-radius:.375rem}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:.45rem .6rem;text-align:start;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft)}
tbody tr:last-child td{border-bottom:0}
:lang(fa){font-family:Vazirmatn,system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",Tahoma,sans-serif}
ol:lang(fa){list-style-type:persian}
code:lang(fa),pre:lang(fa){font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,Vazirmatn,monospace}
form{margin:1.5rem 0;display:grid;gap:1rem;max-width:36rem}
fieldset{border:1px solid var(--line);border-radius:.375rem;padding:1rem;display:grid;gap:1rem;margin:0}
legend{font-weight:700;padding:0 .25rem}
label{font-weight:600;display:block}
.hint{display:block;font-weight:400;color:var(--muted);font-size:.9rem}
input,textarea{font:inherit;color:inherit;background:var(--bg);width:100%;padding:.55rem .65rem;border:1px solid var(--muted);border-radius:.3rem;margin-top:.25rem}
textarea{min-height:6rem;resize:vertical}
[aria-invalid="true"]{border:2px solid var(--bad)}
.field-error{color:var(--bad);font-weight:600;display:block;margin-top:.25rem}
button{font:inherit;font-weight:700;padding:.65rem 1.25rem;min-height:44px;border:0;border-radius:.3rem;background:var(--link);color:var(--bg);cursor:pointer;justify-self:start}
#there-is-a-problem{color:var(--bad);border-top:3px solid var(--bad)}
#there-is-a-problem+p,#there-is-a-problem+ul{border-inline-start:4px solid var(--bad);padding-inline-start:.75rem;margin-inline-start:0}
#there-is-a-problem+ul{list-style:none}
.trap{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.site-footer{border-top:1px solid var(--line);padding-top:1rem;padding-bottom:2rem;color:var(--muted);font-size:.95rem}
.site-footer h2{font-size:1rem;border:0;margin:0;padding:0}
@media (min-width:40rem){h1{font-size:2rem}.site-header{display:flex;align-items:baseline;justify-content:space-between;gap:1rem;flex-wrap:wrap}.site-header nav ul{margin:0}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important}}
${chartStylesheet}
${coinListStylesheet}
`.trim();

const styleHash = createHash('sha256').update(stylesheet).digest('base64');

/**
 * Sent with every HTML page: only the inline stylesheet above may apply, nothing may run. With no
 * script, `connect-src 'self'` lets nothing on the page connect anywhere; it is there for browser
 * audits, which read `/robots.txt` from within the page (docs/architecture.md#the-website).
 */
export const pageContentSecurityPolicy = [
  "default-src 'none'",
  "connect-src 'self'",
  `style-src 'sha256-${styleHash}'`,
  "img-src 'self' data:",
  "font-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The human pages, by English path, in the order the header lists them. */
const siteNav = [
  '/',
  '/docs',
  '/docs/errors',
  '/coins',
  '/clients',
  '/status',
  '/contact',
  '/terms',
] as const;

/** The machine-readable documents every page links to (discovery documents link each other). */
const machineLinks = [
  '/v1/openapi.json',
  '/.well-known/api-catalog',
  '/llms.txt',
  '/llms-full.txt',
  '/SKILL.md',
  '/v1/health',
] as const;

interface LayoutInput {
  publicUrl: string;
  words: SiteWords;
  /** The page's English path (`/coins/BTC`); the page itself is that path in `words.language`. */
  sitePath: string;
  /** Page title (plain text). */
  title: string;
  /** One sentence (plain text) for `<meta name="description">`. */
  description: string;
  /** Rendered page body (trusted HTML from the Markdown renderer and the form builders). */
  bodyHtml: string;
  /** Section (English path) whose nav entry is marked current (defaults to `sitePath`). */
  navPath?: string;
  /** False for pages that are not the canonical form of a resource (e.g. error pages). */
  canonical?: boolean;
}

/** The page at `sitePath` in every language, as `Link` header members (RFC 8288) with `hreflang`. */
export function languageAlternates(publicUrl: string, sitePath: string): string {
  return [
    ...languages.map(
      (language) => `<${publicUrl}${pathIn(language, sitePath)}>; rel="alternate"; hreflang="${language}"`,
    ),
    `<${publicUrl}${sitePath}>; rel="alternate"; hreflang="x-default"`,
  ].join(', ');
}

export function renderLayout(input: LayoutInput): string {
  const { publicUrl, words } = input;
  const { layout } = words;
  const language: Language = words.language;
  const current = input.navPath ?? input.sitePath;
  const href = (path: string) => escapeHtml(`${publicUrl}${path}`);
  const local = (path: string) => href(pathIn(language, path));
  const navItems = siteNav
    .map(
      (path) =>
        `<li><a href="${local(path)}"${path === current ? ' aria-current="page"' : ''}>${escapeHtml(layout.nav[path])}</a></li>`,
    )
    .join('');
  const machineItems = machineLinks
    .map((path) => `<li><a href="${href(path)}">${escapeHtml(layout.machineLinks[path])}</a></li>`)
    .join('');
  // A page that is not the canonical form of an address (an error, a form's answer) switches to
  // its section, so nothing a request made up is repeated in a link.
  const switchPath = input.canonical === false ? current : input.sitePath;
  const switchLinks = languages
    .filter((other) => other !== language)
    .map((other) => {
      const them = wordsOf(other);
      return `<a href="${href(pathIn(other, switchPath))}" hreflang="${other}" lang="${other}" dir="${them.dir}">${escapeHtml(them.ownName)}</a>`;
    })
    .join(' ');
  const self = local(input.sitePath);
  const alternates = [
    ...languages.map(
      (other) => `<link rel="alternate" hreflang="${other}" href="${href(pathIn(other, input.sitePath))}">`,
    ),
    `<link rel="alternate" hreflang="x-default" href="${href(input.sitePath)}">`,
  ].join('\n');
  const canonical =
    input.canonical === false
      ? ''
      : `<link rel="canonical" href="${self}">
<link rel="alternate" type="text/markdown" href="${self}">
${alternates}`;
  return `<!doctype html>
<html lang="${language}" dir="${words.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)} · ${escapeHtml(layout.titleSuffix)}</title>
<meta name="description" content="${escapeHtml(input.description)}">
${canonical}
<link rel="api-catalog" href="${href('/.well-known/api-catalog')}">
<link rel="service-desc" type="application/openapi+json" href="${href('/v1/openapi.json')}">
<link rel="service-doc" type="text/html" href="${local('/docs')}">
<link rel="icon" href="data:,">
<link rel="preload" href="${fontPath}" as="font" type="font/woff2" crossorigin>
<style>${stylesheet}</style>
</head>
<body>
<a class="skip-link" href="#main">${escapeHtml(layout.skipLink)}</a>
<header class="site-header">
<a class="brand" href="${local('/')}">nerkh<span lang="fa" dir="rtl">نرخ</span></a>
<nav aria-label="${escapeHtml(layout.siteNavLabel)}"><ul>${navItems}</ul></nav>
<nav class="language-switch" aria-label="${escapeHtml(layout.languageSwitchLabel)}">${switchLinks}</nav>
</header>
<main id="main" tabindex="-1">
${input.bodyHtml}
</main>
<footer class="site-footer">
<nav aria-labelledby="machine-links"><h2 id="machine-links">${escapeHtml(layout.machineHeading)}</h2><ul>${machineItems}</ul></nav>
<p>${layout.footerHtml(local('/terms'))}</p>
</footer>
</body>
</html>
`;
}
