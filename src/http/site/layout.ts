import { createHash } from 'node:crypto';
import { chartStylesheet } from './charts/chart-style.ts';
import { coinListStylesheet } from './coin-list-html.ts';
import { escapeHtml } from './markdown.ts';

/**
 * The one HTML layout of the website. Styles are inline (no external assets: the site works
 * offline and from a single response); there is no script at all. The Content-Security-Policy
 * allows exactly this stylesheet by its hash, so injected markup could neither run nor style.
 *
 * Accessibility: `lang="en"`, a skip link, landmarks (header/nav/main/footer), `aria-current` on
 * the current page, a visible focus ring, colours with at least 4.5:1 contrast in both light and
 * dark schemes, mobile-first layout that reflows down to 320 px (WCAG 1.4.10).
 */

const stylesheet = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1e23;--muted:#4a5260;--line:#d5d9e0;--soft:#f3f5f8;--link:#0a55c4;--focus:#b34a00;--ok:#126b2f;--warn:#8a5300;--bad:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e9ecf1;--muted:#b4bcc8;--line:#3a414c;--soft:#1b2027;--link:#8cb8ff;--focus:#ffb86b;--ok:#7ad79a;--warn:#ffcc73;--bad:#ff9d96}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Vazirmatn",Tahoma,sans-serif;overflow-wrap:break-word}
a{color:var(--link);text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip-link{position:absolute;left:.5rem;top:-4rem;padding:.5rem 1rem;background:var(--fg);color:var(--bg);z-index:10;border-radius:.25rem}
.skip-link:focus{top:.5rem}
.site-header,.site-footer,main{max-width:52rem;margin:0 auto;padding:0 1rem}
.site-header{padding-top:.75rem;padding-bottom:.5rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.25rem;text-decoration:none;color:var(--fg)}
.brand span{font-weight:400;color:var(--muted);margin-left:.4rem}
nav ul{list-style:none;margin:.5rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a{display:inline-block;padding:.35rem 0;min-height:44px;line-height:2}
nav a[aria-current="page"]{font-weight:700;text-decoration-thickness:3px}
main{padding-top:1rem;padding-bottom:2rem}
main:focus{outline:none}
h1{font-size:1.75rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.35rem;line-height:1.3;margin:2rem 0 .75rem;padding-top:.5rem;border-top:1px solid var(--line)}
h3{font-size:1.1rem;margin:1.5rem 0 .5rem}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--soft);padding:.1em .3em;border-radius:.25rem}
pre{background:var(--soft);border:1px solid var(--line);border-radius:.375rem;padding:.75rem;overflow-x:auto;line-height:1.45}
pre code{background:none;padding:0}
blockquote{margin:1rem 0;padding:.5rem 1rem;border-inline-start:4px solid var(--line);color:var(--muted)}
.table-scroll{overflow-x:auto;margin:1rem 0;border:1px solid var(--line);border-radius:.375rem}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:.45rem .6rem;text-align:start;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft)}
tbody tr:last-child td{border-bottom:0}
[lang="fa"]{font-family:"Vazirmatn","Noto Naskh Arabic","Noto Sans Arabic",Tahoma,sans-serif}
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
.trap{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.site-footer{border-top:1px solid var(--line);padding-top:1rem;padding-bottom:2rem;color:var(--muted);font-size:.95rem}
.site-footer h2{font-size:1rem;border:0;margin:0;padding:0}
@media (min-width:40rem){h1{font-size:2rem}.site-header{display:flex;align-items:baseline;justify-content:space-between;gap:1rem;flex-wrap:wrap}.site-header nav ul{margin:0}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important}}
${chartStylesheet}
${coinListStylesheet}
`.trim();

const styleHash = createHash('sha256').update(stylesheet).digest('base64');

/** Sent with every HTML page: only the inline stylesheet above may apply, nothing may run. */
export const pageContentSecurityPolicy = [
  "default-src 'none'",
  `style-src 'sha256-${styleHash}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface NavLink {
  path: string;
  label: string;
}

/** The human pages, in the order the header lists them. */
const siteNav: readonly NavLink[] = [
  { path: '/', label: 'Overview' },
  { path: '/docs', label: 'API docs' },
  { path: '/docs/errors', label: 'Errors' },
  { path: '/coins', label: 'Coins' },
  { path: '/status', label: 'Status' },
  { path: '/contact', label: 'Get a key' },
  { path: '/terms', label: 'Terms' },
];

/** The machine-readable documents every page links to (discovery documents link each other). */
const machineLinks: readonly NavLink[] = [
  { path: '/v1/openapi.json', label: 'OpenAPI description' },
  { path: '/.well-known/api-catalog', label: 'API catalog (RFC 9727)' },
  { path: '/llms.txt', label: 'llms.txt' },
  { path: '/llms-full.txt', label: 'llms-full.txt' },
  { path: '/SKILL.md', label: 'SKILL.md for agents' },
  { path: '/v1/health', label: 'Health (JSON)' },
];

interface LayoutInput {
  publicUrl: string;
  /** Path of the page, for the canonical link and `aria-current`. */
  path: string;
  /** Page title (plain text). */
  title: string;
  /** One sentence (plain text) for `<meta name="description">`. */
  description: string;
  /** Rendered page body (trusted HTML from the Markdown renderer and the form builders). */
  bodyHtml: string;
  /** Section whose nav entry is marked current (defaults to `path`). */
  navPath?: string;
  /** False for pages that are not the canonical form of a resource (e.g. error pages). */
  canonical?: boolean;
}

export function renderLayout(input: LayoutInput): string {
  const { publicUrl } = input;
  const current = input.navPath ?? input.path;
  const href = (path: string) => escapeHtml(`${publicUrl}${path}`);
  const navItems = siteNav
    .map(
      (link) =>
        `<li><a href="${href(link.path)}"${link.path === current ? ' aria-current="page"' : ''}>${escapeHtml(link.label)}</a></li>`,
    )
    .join('');
  const machineItems = machineLinks
    .map((link) => `<li><a href="${href(link.path)}">${escapeHtml(link.label)}</a></li>`)
    .join('');
  const canonical =
    input.canonical === false
      ? ''
      : `<link rel="canonical" href="${href(input.path)}">
<link rel="alternate" type="text/markdown" href="${href(input.path)}">`;
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)} · nerkh</title>
<meta name="description" content="${escapeHtml(input.description)}">
${canonical}
<link rel="api-catalog" href="${href('/.well-known/api-catalog')}">
<link rel="service-desc" type="application/openapi+json" href="${href('/v1/openapi.json')}">
<link rel="service-doc" type="text/html" href="${href('/docs')}">
<link rel="icon" href="data:,">
<style>${stylesheet}</style>
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">
<a class="brand" href="${href('/')}">nerkh<span lang="fa" dir="rtl">نرخ</span></a>
<nav aria-label="Site"><ul>${navItems}</ul></nav>
</header>
<main id="main" tabindex="-1">
${input.bodyHtml}
</main>
<footer class="site-footer">
<nav aria-labelledby="machine-links"><h2 id="machine-links">For programs and AI agents</h2><ul>${machineItems}</ul></nav>
<p>Every page is also available as Markdown: request it with <code>Accept: text/markdown</code>. Rates are informational; see the <a href="${href('/terms')}">terms</a>.</p>
</footer>
</body>
</html>
`;
}
