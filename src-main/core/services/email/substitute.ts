import he from 'he';
import { PLACEHOLDER } from '../../../../src-shared/schemas/email';

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
 * a value is left as it is and named in `missing`.
 */
export function substitute(text: string, values: Map<string, string>, html: boolean, missing: Set<string>): string {
  return text.replace(PLACEHOLDER, (all, name: string) => {
    const value = values.get(name);
    if (value === undefined) {
      missing.add(name);
      return all;
    }
    return html ? he.encode(value, { useNamedReferences: false }) : value;
  });
}
