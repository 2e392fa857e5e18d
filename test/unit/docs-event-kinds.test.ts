import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs never say how many email event kinds there are ("any of the twelve kinds"): a kind is added
 * with its payload alone (docs/architecture.md, "Recipe: add an event kind"), and a count in prose
 * would be a sentence left wrong by it. Output a command prints, quoted in a code block, is what it
 * prints and is not read here.
 */

const ROOT = resolve(__dirname, '../..');
const WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen'];
/** "the twelve kinds", "the twelve email events", "the twelve event toggles", "all 12 event kinds" (not "two events of one kind", "1,000 events": quantities). */
const COUNT_OF_KINDS = new RegExp(
  `\\b(?:the (?:${WORDS.join('|')}) (?:email )?(?:event )?(?:kinds|events|event types|toggles)|\\d+ (?:email )?(?:event )?(?:kinds|event types|toggles))\\b`,
  'gi',
);

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The page's prose (code blocks left out), its lines joined (a sentence may wrap). */
function prose(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/\s+/g, ' ');
}

describe('the docs do not count the email event kinds', () => {
  it('catches a count (the check reads something)', () => {
    expect('Fire any of the twelve kinds, or all 12 event kinds'.match(COUNT_OF_KINDS)).toHaveLength(2);
  });

  it.each(pages)('%s names no number of kinds', (page) => {
    expect([...prose(page).matchAll(COUNT_OF_KINDS)].map((m) => `${page}: "${m[0]}"`)).toEqual([]);
  });
});
