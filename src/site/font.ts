import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The Persian font, self-hosted from the pinned `vazirmatn` npm package: no request ever leaves
 * the site for a font, and the page's CSP allows fonts from the site only. The file is the
 * package's variable "Non-Latin" build (every weight in one file, Arabic-script glyphs only, about
 * 48 kB): Latin text keeps the system font, and the stylesheet's `unicode-range` loads the font
 * only on pages with Persian text. Its URL carries the package version, so it is cached for a year
 * as immutable and a new version is a new URL.
 */
const packageJsonPath = fileURLToPath(import.meta.resolve('vazirmatn/package.json'));
const fontVersion = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version: string }).version;

export const fontPath = `/fonts/vazirmatn-nl-${fontVersion}.woff2`;

/** The font file's bytes (the app reads them once, at start). */
export function readFontFile(): Buffer {
  return readFileSync(
    join(dirname(packageJsonPath), 'misc/Non-Latin/fonts/webfonts/Vazirmatn-NL[wght].woff2'),
  );
}
