import { WARNING_HEADER, WARNING_SEPARATOR } from '../../../src-shared/http-client';

export { WARNING_HEADER };

/** `X-Mailyard-Warning` says at most this many characters, then how many warnings more there were. */
export const MAX_WARNING_HEADER = 2000;

/** The header's value: each warning in printable ASCII (anything else escaped), separated by ` | `, bounded. */
export function warningHeaderValue(warnings: readonly string[]): string {
  let out = '';
  for (let i = 0; i < warnings.length; i++) {
    const text = warnings[i]!.replace(/[^\x20-\x7e]|\|/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const next = out === '' ? text : `${out}${WARNING_SEPARATOR}${text}`;
    if (next.length > MAX_WARNING_HEADER) return `${out}${WARNING_SEPARATOR}... (${warnings.length - i} more)`;
    out = next;
  }
  return out;
}
