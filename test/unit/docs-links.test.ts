import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README is the front door and docs/*.md the reference: a newcomer follows their links. Every
 * relative link and image in README.md, docs/*.md and each example's README must name a file that exists, and a `#anchor`
 * a heading of the page it points into (GitHub's heading ids). Links to other sites are not checked
 * (tests stay offline).
 */

const ROOT = resolve(__dirname, '../..');

/** GitHub's id of a heading: lower-cased, punctuation dropped, spaces as hyphens; repeats get -1, -2... */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** The text outside fenced code blocks (a `#` comment or a `[x](y)` in code is not markdown). */
function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

interface Link {
  line: number;
  target: string;
}

/** The links and images of a page: `[text](target)`, `![alt](target)`, `<img src="target">`; code excluded. */
function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  withoutCodeBlocks(markdown)
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/``.*?``|`[^`]*`/g, '');
      for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: m[1]! });
      for (const m of line.matchAll(/<img\s[^>]*src="([^"]+)"/g)) links.push({ line: i + 1, target: m[1]! });
    });
  return links;
}

/** What is wrong with each relative link of `file` (under `root`), as `file:line -> target: problem`. */
function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const problems: string[] = [];
  for (const { line, target } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // another site, mailto:
    const [path = '', anchor] = target.split('#') as [string, string | undefined];
    const where = `${relative(root, file)}:${line} -> ${target}`;
    const dest = path === '' ? file : resolve(dirname(file), decodeURI(path));
    if (!dest.startsWith(`${root}/`) && dest !== root) {
      problems.push(`${where}: points outside the repository`);
      continue;
    }
    if (!existsSync(dest)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
      problems.push(`${where}: an anchor into a file that has no headings`);
      continue;
    }
    if (!headingIds(readFileSync(dest, 'utf8')).has(decodeURIComponent(anchor).toLowerCase()))
      problems.push(`${where}: no heading with that id in ${relative(root, dest)}`);
  }
  return problems;
}

/** Folders a path in the docs may start from besides the page's own: the repository's, or the core's (the map names `store/x.ts`). */
const PATH_ROOTS = ['', 'src-main/core/'];
const TOP_FOLDERS = new Set(['src-main', 'src-shared', 'src-renderer', 'test', 'docs', 'build', 'schemas', 'examples', '.ci']);

/**
 * The repository paths a page names in code spans (`src-main/core/clock.ts`, `store/write-batcher.ts`),
 * with their lines: a span that is a path (no spaces, wildcards or placeholders) and starts with a top
 * folder of the repository or a folder of the core. Code blocks are examples and output, not read.
 */
function pathsNamed(root: string, markdown: string): Link[] {
  const named: Link[] = [];
  withoutCodeBlocks(markdown)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/`([^`\s]+)`/g)) {
        const path = m[1]!.replace(/\/$/, '');
        // `src-main/X.ts` is a pattern, not a path.
        if (!/^\.?[\w@-]+(\/[\w.@-]+)+$/.test(path) || /(^|\/)X(\.|$)/.test(path)) continue;
        const first = path.split('/')[0]!;
        if (TOP_FOLDERS.has(first) || existsSync(join(root, 'src-main/core', first))) named.push({ line: i + 1, target: path });
      }
    });
  return named;
}

/** Each repository path `file` names that does not exist, as `file:line -> path`. */
function missingPaths(root: string, file: string): string[] {
  return pathsNamed(root, readFileSync(file, 'utf8'))
    .filter(({ target }) => !PATH_ROOTS.some((base) => existsSync(join(root, base, target))) && !existsSync(join(dirname(file), target)))
    .map(({ line, target }) => `${relative(root, file)}:${line} -> ${target}: no such file or folder`);
}

function pages(root: string): string[] {
  const docs = join(root, 'docs');
  const inDocs = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(docs, f))
    : [];
  const examples = join(root, 'examples');
  const inExamples = existsSync(examples)
    ? readdirSync(examples)
        .map((d) => join(examples, d, 'README.md'))
        .filter((f) => existsSync(f))
    : [];
  return [join(root, 'README.md'), ...inDocs.sort(), ...inExamples.sort()];
}

describe('the README and docs/ link only to what exists', () => {
  const files = pages(ROOT);

  it('has the reference pages the README points to', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(files.map((f) => relative(ROOT, f))).toContain('docs/architecture.md');
  });

  for (const file of files) {
    it(`every relative link and image of ${relative(ROOT, file)} resolves`, () => {
      expect(brokenLinks(ROOT, file)).toEqual([]);
    });
  }

  for (const file of files) {
    it(`every repository path ${relative(ROOT, file)} names exists`, () => {
      expect(missingPaths(ROOT, file)).toEqual([]);
    });
  }

  it('every screenshot in docs/ is shown or linked from a page', () => {
    const linked = new Set(files.flatMap((f) => linksOf(readFileSync(f, 'utf8')).map((l) => resolve(dirname(f), l.target.split('#')[0]!))));
    const pngs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.png'));
    expect(pngs.length).toBeGreaterThan(0);
    expect(pngs.filter((p) => !linked.has(join(ROOT, 'docs', p)))).toEqual([]);
  });

  it('the README keeps the commands CI and newcomers run, exactly', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const command of ['npm ci && npm run serve', 'npm ci && npm start', 'npm ci && npm test']) expect(readme).toContain(command);
  });
});

describe('the link check itself', () => {
  const root = mkdtempSync(join(tmpdir(), 'mailyard-docs-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'shot.png'), '');
  writeFileSync(
    join(root, 'docs', 'page.md'),
    ['# The page', '', '## Beyond loopback (`--host 0.0.0.0`)', '', '## Notes', '', '## Notes', '', '```sh', '# not a heading', '```'].join('\n'),
  );

  it('passes good links: files, images, anchors (GitHub ids, repeats numbered), other sites, code', () => {
    writeFileSync(
      join(root, 'README.md'),
      [
        '![shot](docs/shot.png) [page](docs/page.md) [here](#a-title)',
        '# A title',
        '[loopback](docs/page.md#beyond-loopback---host-0000) [second](docs/page.md#notes-1) [site](https://example.com/x#y)',
        '`[not a link](nowhere.md)`',
        '```',
        '[in code](nowhere.md)',
        '```',
      ].join('\n'),
    );
    expect(brokenLinks(root, join(root, 'README.md'))).toEqual([]);
  });

  it('names each broken link: a missing file, a missing heading, an anchor into an image, a path outside', () => {
    writeFileSync(
      join(root, 'README.md'),
      ['![gone](docs/gone.png)', '[typo](docs/page.md#beyond-loopback)', '[image](docs/shot.png#top)', '[out](../elsewhere.md)', '[self](#nothing)'].join('\n'),
    );
    expect(brokenLinks(root, join(root, 'README.md'))).toEqual([
      'README.md:1 -> docs/gone.png: no such file',
      'README.md:2 -> docs/page.md#beyond-loopback: no heading with that id in docs/page.md',
      'README.md:3 -> docs/shot.png#top: an anchor into a file that has no headings',
      'README.md:4 -> ../elsewhere.md: points outside the repository',
      'README.md:5 -> #nothing: no heading with that id in README.md',
    ]);
  });

  it('names each repository path a page gives that is gone, from the root or a folder of the core', () => {
    mkdirSync(join(root, 'src-main/core/store'), { recursive: true });
    writeFileSync(join(root, 'src-main/core/store/here.ts'), '');
    writeFileSync(
      join(root, 'README.md'),
      [
        '`src-main/core/store/here.ts` and `store/here.ts` and `docs/page.md`',
        '`test/unit/gone.test.ts`, `store/gone.ts`',
        '`a sentence/with spaces` `npm run x` `--flag/other`',
      ].join('\n'),
    );
    expect(missingPaths(root, join(root, 'README.md'))).toEqual([
      'README.md:2 -> test/unit/gone.test.ts: no such file or folder',
      'README.md:2 -> store/gone.ts: no such file or folder',
    ]);
  });
});
