import type { Language } from '../language.ts';
import { englishWords } from './english.ts';
import { persianWords } from './persian.ts';
import type { SiteWords } from './site-words.ts';

const wordsByLanguage: Record<Language, SiteWords> = { en: englishWords, fa: persianWords };

export function wordsOf(language: Language): SiteWords {
  return wordsByLanguage[language];
}
