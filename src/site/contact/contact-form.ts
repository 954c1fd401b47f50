import { escapeHtml, escapeMarkdown } from '../pages/markdown.ts';
import type { FormFieldName, SiteWords } from '../words/site-words.ts';

/**
 * The key request form: its fields, their limits, validation, and its HTML. The form follows
 * the GOV.UK error pattern: every control has a visible label and hint, an invalid field gets
 * `aria-invalid` and an error message tied to it with `aria-describedby`, and the page lists the
 * problems at the top with links to the fields.
 */

interface FieldSpec {
  name: FormFieldName;
  required: boolean;
  maxLength: number;
  multiline: boolean;
  autocomplete: string;
  type: 'text' | 'email';
}

/** The fields in order; their labels, hints and names in messages are the page language's (SiteWords.form). */
const fields: readonly FieldSpec[] = [
  { name: 'name', required: true, maxLength: 100, multiline: false, autocomplete: 'name', type: 'text' },
  {
    name: 'org',
    required: true,
    maxLength: 200,
    multiline: false,
    autocomplete: 'organization',
    type: 'text',
  },
  // The limits of email and purpose are those of an issued key's contact and purpose, so every
  // stored request can be approved as it is.
  { name: 'email', required: true, maxLength: 200, multiline: false, autocomplete: 'email', type: 'email' },
  { name: 'purpose', required: true, maxLength: 500, multiline: true, autocomplete: 'off', type: 'text' },
  {
    name: 'expected_use',
    required: false,
    maxLength: 500,
    multiline: true,
    autocomplete: 'off',
    type: 'text',
  },
];

/** Name of the honeypot field: hidden from people and assistive technology, filled only by bots. */
export const honeypotField = 'website';
export const tokenField = 'csrf_token';

export type FormValues = Record<FormFieldName, string>;
export type FieldErrors = Partial<Record<FormFieldName, string>>;

export const emptyValues: FormValues = { name: '', org: '', email: '', purpose: '', expected_use: '' };

/** Practical email check (HTML's `type=email` grammar); the operator verifies by replying. */
const emailPattern =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
/** Control characters (C0, C1) and bidirectional overrides, which could disguise text in any output. */
const disallowedCharacters = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** Reads and checks a submitted body; values are trimmed and line endings normalised. */
export function validateForm(
  body: Record<string, unknown>,
  words: SiteWords,
): { values: FormValues; errors: FieldErrors } {
  const values = { ...emptyValues };
  const errors: FieldErrors = {};
  const say = words.form;
  for (const field of fields) {
    const { noun } = say.fields[field.name];
    const raw = body[field.name];
    if (raw !== undefined && typeof raw !== 'string') {
      errors[field.name] = say.giveOnce(noun);
      continue;
    }
    const value = (raw ?? '').replace(/\r\n?/g, '\n').trim();
    values[field.name] = value;
    if (value === '') {
      if (field.required) errors[field.name] = say.enter(noun);
    } else if (value.length > field.maxLength) {
      errors[field.name] = say.tooLong(noun, words.integer(field.maxLength));
    } else if (disallowedCharacters.test(field.multiline ? value.replace(/[\t\n]/g, '') : value)) {
      errors[field.name] = say.badCharacters(noun);
    } else if (field.name === 'email' && !emailPattern.test(value)) {
      errors[field.name] = say.badEmail;
    }
  }
  return { values, errors };
}

/** A failed submission's notice: the problem heading, then Markdown (a sentence or a list). */
export function problemNotice(words: SiteWords, body: string): string {
  return `## ${words.form.problemHeading}\n\n${body}\n\n`;
}

/** The problems of a submission as a Markdown section, shown in both forms of the page, linking to the fields. */
export function errorNotice(errors: FieldErrors, words: SiteWords): string {
  const items = fields
    .filter((field) => errors[field.name] !== undefined)
    .map((field) => `- [${escapeMarkdown(errors[field.name] as string)}](#${field.name})`);
  return problemNotice(words, items.join('\n'));
}

interface FormRender {
  action: string;
  token: string;
  values: FormValues;
  errors: FieldErrors;
  words: SiteWords;
}

export function renderForm(input: FormRender): string {
  const say = input.words.form;
  const controls = fields.map((field) => {
    const { label, hint } = say.fields[field.name];
    const error = input.errors[field.name];
    const describedBy = [`${field.name}-hint`, ...(error ? [`${field.name}-error`] : [])].join(' ');
    const common = `id="${field.name}" name="${field.name}" maxlength="${field.maxLength}" aria-describedby="${describedBy}"${field.required ? ' required' : ''}${error ? ' aria-invalid="true"' : ''} autocomplete="${field.autocomplete}"`;
    const value = escapeHtml(input.values[field.name]);
    const control = field.multiline
      ? `<textarea ${common} rows="4" dir="auto">${value}</textarea>`
      : `<input type="${field.type}" ${common} value="${value}"${field.type === 'email' ? ' spellcheck="false" dir="ltr"' : ' dir="auto"'}>`;
    return `<div>
<label for="${field.name}">${escapeHtml(label)}</label>
<span class="hint" id="${field.name}-hint">${escapeHtml(hint)}</span>
${error ? `<span class="field-error" id="${field.name}-error">${escapeHtml(say.errorPrefix)} ${escapeHtml(error)}</span>\n` : ''}${control}
</div>`;
  });
  return `<form method="post" action="${escapeHtml(input.action)}" novalidate>
<fieldset>
<legend>${escapeHtml(say.legend)}</legend>
${controls.join('\n')}
<div class="trap" aria-hidden="true"><label for="${honeypotField}">${escapeHtml(say.honeypotLabel)}</label><input type="text" id="${honeypotField}" name="${honeypotField}" tabindex="-1" autocomplete="off"></div>
<input type="hidden" name="${tokenField}" value="${escapeHtml(input.token)}">
</fieldset>
<button type="submit">${escapeHtml(say.submit)}</button>
</form>`;
}
