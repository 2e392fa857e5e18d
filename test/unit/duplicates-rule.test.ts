import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DUPLICATES_RULE } from '../../src-shared/duplicates';

/**
 * Mailyard teaches one rule for duplicate webhook requests (src-shared/duplicates.ts), and a receiver
 * built on another one loses events (a ref_id covers every recipient of a send, and one recipient gets
 * soft, soft, then hard bounces under it). So every mention of deduplicating in the docs, the README,
 * the source and the examples is that one sentence, word for word (its lines joined, Markdown's
 * backticks and a comment's leading marks aside); the code says it through the constant.
 */

const ROOT = resolve(__dirname, '../..');
const SCANNED = ['README.md', 'docs', 'src-main', 'src-shared', 'src-renderer', 'examples'];
const TEXT = /\.(md|ts|tsx|js|mjs|cjs|json|yaml|yml|css|html)$/;

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .filter((name) => name !== 'node_modules' && !name.startsWith('.'))
    .flatMap((name) => filesUnder(join(path, name)))
    .filter((f) => TEXT.test(f));
}

/** The text as a reader takes it: lines joined, comment marks at line starts, Markdown emphasis and backticks dropped. */
function prose(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/+|\/\*\*?|\*\/?|#+)\s?/, ''))
    .join(' ')
    .replace(/`|\*\*/g, '')
    .replace(/\s+/g, ' ');
}

/** Where `needle` occurs in `haystack`, as [start, end) ranges. */
function ranges(haystack: string, needle: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) out.push([at, at + needle.length]);
  return out;
}

/** Each mention of deduplicating in `text` (as `prose` gives it) that is not inside the rule, with a little of its context. */
function otherRules(text: string): string[] {
  const rules = ranges(text, DUPLICATES_RULE);
  return [...text.matchAll(/dedup/gi)]
    .filter((m) => !rules.some(([from, to]) => m.index >= from && m.index < to))
    .map((m) => `…${text.slice(Math.max(0, m.index - 80), m.index + 80)}…`);
}

describe('one rule for duplicate webhook requests, said the same everywhere', () => {
  const files = SCANNED.flatMap(filesUnder);

  it('reads the docs, the source and the examples', () => {
    expect(files).toContain('docs/webhooks.md');
    expect(files.some((f) => f.startsWith('examples/shop/'))).toBe(true);
    expect(files.length).toBeGreaterThan(200);
  });

  it('says it in webhooks.md, with why', () => {
    const text = prose(readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8'));
    expect(ranges(text, DUPLICATES_RULE)).toHaveLength(1);
    expect(text).toContain('soft-bounce-gives-up@sim.mailyard.test');
  });

  it('has no mention of deduplicating but the rule', () => {
    expect(files.flatMap((file) => otherRules(prose(readFileSync(join(ROOT, file), 'utf8'))).map((found) => `${file}: ${found}`))).toEqual([]);
  });

  it('finds another rule beside the one (the check can fail)', () => {
    const text = prose(`/**\n * ${DUPLICATES_RULE.replace('events never', 'events\n * never')}\n * Receivers deduplicate by ref_id.\n */`);
    expect(ranges(text, DUPLICATES_RULE)).toHaveLength(1);
    expect(otherRules(text)).toEqual([expect.stringContaining('Receivers deduplicate by ref_id')]);
  });
});
