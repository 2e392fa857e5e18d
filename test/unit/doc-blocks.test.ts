/**
 * The docs' code blocks and their doc-check markers (test/doc-blocks/check.mjs compiles and runs the
 * blocks against the packed package in `.ci/run`): every page's markers read, and the parser takes
 * what the scheme says and refuses the rest, naming the page and line.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, parseBlocks, parseMarker, runnerOf } from '../doc-blocks/blocks.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const fence = '```';

describe("the docs' code blocks", () => {
  const pages = docPages(ROOT).map((page) => ({ page, ...parseBlocks(page, readFileSync(join(ROOT, page), 'utf8')) }));

  it('every marker reads, and there are blocks to check', () => {
    expect(pages.flatMap((p) => p.errors)).toEqual([]);
    expect(pages.flatMap((p) => p.blocks).length).toBeGreaterThan(15);
  });

  it('the documented imports are there: mailyard/testing/matchers, a complete vitest test run by the check', () => {
    const blocks = pages.flatMap((p) => p.blocks);
    const matchers = blocks.find((b) => b.code.includes("from 'mailyard/testing/matchers'"));
    expect(matchers?.marker.mode).toBe('complete');
    expect(runnerOf(matchers!.code)).toBe('vitest');
  });
});

describe('parseBlocks', () => {
  it("reads a block's language, lines, code and marker, ignoring blocks of other languages and fences inside them", () => {
    const text = [
      '# Page',
      '<!-- doc-check: fragment given="yard: Mailyard; expect: typeof import(\'vitest\').expect" needs="vitest" -->',
      `${fence}ts`,
      "await yard.waitForMessage({ subject: 'a; b' });",
      fence,
      `${fence}md`,
      `${fence}ts`,
      'not code of the page',
      fence,
      '- a list item:',
      '  <!-- doc-check: compile-only file="signup.spec.ts" needs="@playwright/test @types/node@20" -->',
      `  ${fence}js`,
      "  import { test } from './fixtures.js';",
      `  ${fence}`,
    ].join('\n');
    const { blocks, errors } = parseBlocks('docs/x.md', text);
    expect(errors).toEqual([]);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatchObject({ lang: 'ts', fenceLine: 3, markerLine: 2, code: "await yard.waitForMessage({ subject: 'a; b' });" });
    expect(blocks[0]!.marker).toMatchObject({
      mode: 'fragment',
      needs: ['vitest'],
      given: [
        { name: 'yard', type: 'Mailyard' },
        { name: 'expect', type: "typeof import('vitest').expect" },
      ],
    });
    expect(blocks[1]).toMatchObject({ lang: 'js', fenceLine: 12, code: "import { test } from './fixtures.js';" });
    expect(blocks[1]!.marker).toMatchObject({ mode: 'compile-only', file: 'signup.spec.ts', needs: ['@playwright/test', '@types/node@20'] });
  });

  it('names the page and line of a marker that is wrong, or not before a block', () => {
    const page = (marker: string, lang = 'ts') => parseBlocks('docs/x.md', `text\n${marker}\n${fence}${lang}\ncode\n${fence}\n`).errors;
    expect(page('<!-- doc-check: fragmnet given="a: string" -->')).toEqual([
      expect.stringMatching(/^docs\/x\.md:2: doc-check marker: unknown word "fragmnet"/),
    ]);
    expect(page('<!-- doc-check: compile-only fragment given="a: string" -->')).toEqual([expect.stringContaining('a block is one of them')]);
    expect(page('<!-- doc-check: fragment -->')).toEqual([expect.stringContaining('given="name: Type; ..."')]);
    expect(page('<!-- doc-check: given="a: string" -->')).toEqual([expect.stringContaining('say "fragment" too')]);
    expect(page('<!-- doc-check: colour="red" -->')).toEqual([expect.stringContaining('unknown key "colour"')]);
    expect(page('<!-- doc-check: file="../x.ts" -->')).toEqual([expect.stringContaining('must be a file name')]);
    expect(page('<!-- doc-check: stub="mail.js send: () => void" -->')).toEqual([expect.stringContaining('must be a relative module')]);
    expect(page('<!-- doc-check: needs="vitest" -->', 'sh')).toEqual([
      expect.stringMatching(/^docs\/x\.md:2: a doc-check marker must be on the line right before/),
    ]);
    expect(parseBlocks('docs/x.md', `${fence}ts\nnever closed\n`).errors).toEqual(['docs/x.md: a code fence is never closed']);
    const twice = `<!-- doc-check: file="a.ts" -->\n${fence}ts\n1\n${fence}\n<!-- doc-check: file="a.ts" -->\n${fence}ts\n2\n${fence}\n`;
    expect(parseBlocks('docs/x.md', twice).errors).toEqual(['docs/x.md:6: file="a.ts" is also the block at line 2']);
  });

  it('a block with no marker is a complete file', () => {
    expect(parseMarker('').marker).toMatchObject({ mode: 'complete', needs: [], given: [] });
  });
});

describe('runnerOf', () => {
  it('is the runner a block imports when it declares tests, undefined when it declares none', () => {
    expect(runnerOf("import { test } from 'vitest';\ntest('x', () => {});")).toBe('vitest');
    expect(runnerOf("import { it } from 'node:test';\nit('x', () => {});")).toBe('node:test');
    expect(runnerOf("import { test } from '@playwright/test';\ntest.describe('x', () => {});")).toBe('playwright');
    expect(runnerOf("import { test } from './fixtures.js';\ntest('x', () => {});")).toBe('unknown');
    expect(runnerOf("import { beforeAll } from 'vitest';\nbeforeAll(() => {});")).toBeUndefined();
  });
});
