import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';

/**
 * The docs say how many email event kinds there are in words ("any of the twelve kinds"), as a reader
 * wants it; the number is the length of the one list (src-shared/events.ts). A kind added to the list
 * fails here at each sentence that still gives the old count.
 */

const ROOT = resolve(__dirname, '../..');
const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];
/** "the twelve kinds", "the twelve event kinds", "the twelve email events", "the twelve event toggles". */
const COUNT_OF_KINDS = new RegExp(`\\bthe (${NUMBER_WORDS.join('|')}) (?:email )?(?:event )?(?:kinds|events|toggles)\\b`, 'gi');

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Every "the <number> kinds" of a page, its lines joined (a sentence may wrap). */
function countsIn(page: string): { phrase: string; count: number }[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/\s+/g, ' ');
  return [...text.matchAll(COUNT_OF_KINDS)].map((m) => ({ phrase: m[0], count: NUMBER_WORDS.indexOf(m[1]!.toLowerCase()) }));
}

describe('the docs count the email event kinds as the list does', () => {
  const found = pages.flatMap((page) => countsIn(page).map((c) => ({ page, ...c })));

  it('finds the sentences that give the count (the check reads something)', () => {
    expect(found.length).toBeGreaterThan(0);
  });

  it.each(pages)('%s gives the number of kinds in the list', (page) => {
    const wrong = countsIn(page).filter((c) => c.count !== EMAIL_EVENT_KINDS.length);
    expect(wrong.map((c) => `${page}: "${c.phrase}" (the list has ${NUMBER_WORDS[EMAIL_EVENT_KINDS.length] ?? EMAIL_EVENT_KINDS.length})`)).toEqual([]);
  });
});
