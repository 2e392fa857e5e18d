import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';

export interface DomainName {
  /** Lower-cased ASCII; an IDN as punycode (`xn--`). */
  ascii: string;
  unicode: string;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A sending domain as typed to its DNS form, or the reason it is not one: a real hostname (RFC 1123
 * labels of letters, digits and hyphens, at most 63 characters each and 253 in all, at least two
 * labels, a TLD that is not all digits), an IDN converted with UTS #46 (node's `domainToASCII`), one
 * trailing dot allowed, never an IP address.
 */
export function parseDomainName(input: string): DomainName | { error: string } {
  const typed = input.trim().replace(/\.$/, '');
  if (typed === '') return { error: 'must not be empty' };
  if (isIP(typed) !== 0 || /^\[.*\]$/.test(typed)) return { error: 'must be a domain name, not an IP address' };
  if (/[\s/\\@:?#%]/.test(typed)) return { error: 'is not a valid domain name (it contains a space or one of / \\ @ : ? # %)' };
  const ascii = domainToASCII(typed);
  if (ascii === '') return { error: 'is not a valid domain name' };
  if (ascii.length > 253) return { error: 'must be at most 253 characters in its ASCII form' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { error: 'must have at least two labels (for example example.com)' };
  for (const label of labels) {
    if (label.length === 0) return { error: 'must not have an empty label (two dots in a row)' };
    if (label.length > 63) return { error: `has a label longer than 63 characters (${label.slice(0, 20)}...)` };
    if (!LABEL.test(label)) return { error: `has an invalid label "${label}": use letters, digits and hyphens, not at the start or end` };
  }
  if (/^\d+$/.test(labels.at(-1)!)) return { error: 'must not end in an all-numeric label' };
  return { ascii, unicode: domainToUnicode(ascii) || ascii };
}

/** The domain of an email address in its DNS form, or undefined when it is not a valid domain. */
export function domainOfAddress(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  if (at < 0) return undefined;
  const parsed = parseDomainName(email.slice(at + 1));
  return 'error' in parsed ? undefined : parsed.ascii;
}
