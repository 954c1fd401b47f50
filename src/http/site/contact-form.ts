import { escapeHtml, escapeMarkdown } from './markdown.ts';

/**
 * The key request form: its fields, their limits, validation, and its HTML. The form follows
 * the GOV.UK error pattern: every control has a visible label and hint, an invalid field gets
 * `aria-invalid` and an error message tied to it with `aria-describedby`, and the page lists the
 * problems at the top with links to the fields.
 */

type FieldName = 'name' | 'org' | 'email' | 'purpose' | 'expected_use';

interface FieldSpec {
  name: FieldName;
  label: string;
  /** How error messages name the field. */
  noun: string;
  hint: string;
  required: boolean;
  maxLength: number;
  multiline: boolean;
  autocomplete: string;
  type: 'text' | 'email';
}

export const fields: readonly FieldSpec[] = [
  {
    name: 'name',
    noun: 'your name',
    label: 'Your name',
    hint: 'The person we should reply to.',
    required: true,
    maxLength: 100,
    multiline: false,
    autocomplete: 'name',
    type: 'text',
  },
  {
    name: 'org',
    noun: 'your organisation',
    label: 'Organisation',
    hint: 'Keys are issued to organisations, one per consumer.',
    required: true,
    maxLength: 200,
    multiline: false,
    autocomplete: 'organization',
    type: 'text',
  },
  {
    name: 'email',
    noun: 'your email address',
    label: 'Email',
    hint: 'Where we send the key or our questions.',
    required: true,
    // The limits of email and purpose are those of an issued key's contact and purpose, so every
    // stored request can be approved as it is.
    maxLength: 200,
    multiline: false,
    autocomplete: 'email',
    type: 'email',
  },
  {
    name: 'purpose',
    noun: 'the purpose of the key',
    label: 'Purpose',
    hint: 'What the key is for: your application and how it uses the rates.',
    required: true,
    maxLength: 500,
    multiline: true,
    autocomplete: 'off',
    type: 'text',
  },
  {
    name: 'expected_use',
    noun: 'the expected use',
    label: 'Expected use (optional)',
    hint: 'For example: one request per minute from one server.',
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

export type FormValues = Record<FieldName, string>;
export type FieldErrors = Partial<Record<FieldName, string>>;

export const emptyValues: FormValues = { name: '', org: '', email: '', purpose: '', expected_use: '' };

/** Practical email check (HTML's `type=email` grammar); the operator verifies by replying. */
const emailPattern =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
/** Control characters (C0, C1) and bidirectional overrides, which could disguise text in any output. */
const disallowedCharacters = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** Reads and checks a submitted body; values are trimmed and line endings normalised. */
export function validateForm(body: Record<string, unknown>): { values: FormValues; errors: FieldErrors } {
  const values = { ...emptyValues };
  const errors: FieldErrors = {};
  for (const field of fields) {
    const raw = body[field.name];
    if (raw !== undefined && typeof raw !== 'string') {
      errors[field.name] = `Give ${field.noun} once.`;
      continue;
    }
    const value = (raw ?? '').replace(/\r\n?/g, '\n').trim();
    values[field.name] = value;
    if (value === '') {
      if (field.required) errors[field.name] = `Enter ${field.noun}.`;
    } else if (value.length > field.maxLength) {
      errors[field.name] = `${capitalise(field.noun)} must be ${field.maxLength} characters or fewer.`;
    } else if (disallowedCharacters.test(field.multiline ? value.replace(/[\t\n]/g, '') : value)) {
      errors[field.name] = `${capitalise(field.noun)} contains characters that are not allowed.`;
    } else if (field.name === 'email' && !emailPattern.test(value)) {
      errors[field.name] = 'Enter an email address like name@example.com.';
    }
  }
  return { values, errors };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The problems of a submission as a Markdown section, shown in both forms of the page, linking to the fields. */
export function errorNotice(errors: FieldErrors): string {
  const items = fields
    .filter((field) => errors[field.name] !== undefined)
    .map((field) => `- [${escapeMarkdown(errors[field.name] as string)}](#${field.name})`);
  return `## There is a problem\n\n${items.join('\n')}\n\n`;
}

interface FormRender {
  action: string;
  token: string;
  values: FormValues;
  errors: FieldErrors;
}

export function renderForm(input: FormRender): string {
  const controls = fields.map((field) => {
    const error = input.errors[field.name];
    const describedBy = [`${field.name}-hint`, ...(error ? [`${field.name}-error`] : [])].join(' ');
    const common = `id="${field.name}" name="${field.name}" maxlength="${field.maxLength}" aria-describedby="${describedBy}"${field.required ? ' required' : ''}${error ? ' aria-invalid="true"' : ''} autocomplete="${field.autocomplete}"`;
    const value = escapeHtml(input.values[field.name]);
    const control = field.multiline
      ? `<textarea ${common} rows="4">${value}</textarea>`
      : `<input type="${field.type}" ${common} value="${value}"${field.type === 'email' ? ' spellcheck="false"' : ''}>`;
    return `<div>
<label for="${field.name}">${escapeHtml(field.label)}</label>
<span class="hint" id="${field.name}-hint">${escapeHtml(field.hint)}</span>
${error ? `<span class="field-error" id="${field.name}-error">Error: ${escapeHtml(error)}</span>\n` : ''}${control}
</div>`;
  });
  return `<form method="post" action="${escapeHtml(input.action)}" novalidate>
<fieldset>
<legend>Key request</legend>
${controls.join('\n')}
<div class="trap" aria-hidden="true"><label for="${honeypotField}">Leave this field empty</label><input type="text" id="${honeypotField}" name="${honeypotField}" tabindex="-1" autocomplete="off"></div>
<input type="hidden" name="${tokenField}" value="${escapeHtml(input.token)}">
</fieldset>
<button type="submit">Send request</button>
</form>`;
}
