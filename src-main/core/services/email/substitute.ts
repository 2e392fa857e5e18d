import { PLACEHOLDER, SEND_LIMITS } from '../../../../src-shared/schemas/email';
import { appError } from '../../error-catalogue';
import { he } from './he';

/** A send's `substitutions`: per-recipient values, and `*` for every recipient. */
export type SubstitutionMap = Record<string, Record<string, string | number | boolean>>;

/** The names of the `{{variable}}` placeholders of these texts, each once, in the order they first appear. */
export function placeholdersOf(...texts: Array<string | undefined>): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const m of (text ?? '').matchAll(PLACEHOLDER)) names.add(m[1]!);
  return [...names];
}

/**
 * The values one recipient's placeholders take: `substitutions["*"]`, then those under the recipient's
 * address (compared case-insensitively), which win.
 */
export function valuesFor(substitutions: SubstitutionMap | undefined, recipient: string): Map<string, string> {
  const values = new Map<string, string>();
  if (!substitutions) return values;
  const lc = recipient.toLowerCase();
  const own = Object.entries(substitutions).find(([key]) => key !== '*' && key.toLowerCase() === lc)?.[1];
  for (const source of [substitutions['*'], own]) {
    for (const [name, value] of Object.entries(source ?? {})) values.set(name, String(value));
  }
  return values;
}

/**
 * `text` with each placeholder replaced by its value (HTML-escaped in an HTML part); a placeholder without
 * a value is left as it is and named in `missing`. Returns undefined once the result would pass `room`
 * characters (values can make a small text enormous).
 */
function substitute(text: string, values: Map<string, string>, html: boolean, missing: Set<string>, room: number): string | undefined {
  let length = text.length;
  const escaped = new Map<string, string>();
  let over = false;
  const out = text.replace(PLACEHOLDER, (all, name: string) => {
    if (over) return '';
    const value = values.get(name);
    if (value === undefined) {
      missing.add(name);
      return all;
    }
    let filled = value;
    if (html) {
      // Escaped once per name, not once per placeholder.
      filled = escaped.get(name) ?? he().encode(value, { useNamedReferences: false });
      if (!escaped.has(name)) escaped.set(name, filled);
    }
    length += filled.length - all.length;
    over = length > room;
    return over ? '' : filled;
  });
  return over ? undefined : out;
}

export interface FilledTexts {
  subject: string;
  html: string | undefined;
  text: string | undefined;
}

/**
 * One recipient's subject and parts with its placeholders filled (see `substitute`). Together they may
 * be at most SEND_LIMITS.filledLength characters: past it the send is refused, naming the recipient.
 */
export function fillPlaceholders(texts: FilledTexts, values: Map<string, string>, missing: Set<string>, recipient: string): FilledTexts {
  let room = SEND_LIMITS.filledLength;
  const fill = (text: string, html: boolean) => {
    const out = substitute(text, values, html, missing, room);
    if (out === undefined) {
      throw appError('filledTooLong', { recipient });
    }
    room -= out.length;
    return out;
  };
  const subject = fill(texts.subject, false);
  const html = texts.html === undefined ? undefined : fill(texts.html, true);
  return { subject, html, text: texts.text === undefined ? undefined : fill(texts.text, false) };
}
