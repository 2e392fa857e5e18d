import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's map is how a newcomer finds their way around `src-main/core`: a folder it
 * leaves out is a room nobody is told of, and a folder it names that is gone sends them nowhere. Each
 * folder of the core has its entry in the map (`  name/  what it holds`), each folder inside one is
 * named in its entry, and every folder the map names exists.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CORE = join(ROOT, 'src-main/core');

/** The folders under `dir`, as paths relative to the core (`services`, `services/events`, ...). */
function foldersOf(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => [posix.join(prefix, d.name), ...foldersOf(join(dir, d.name), posix.join(prefix, d.name))]);
}

/** The map's entries for `src-main/core/`: the top-level folder each names, and the text of its entry. */
function coreEntries(markdown: string): Array<{ folder: string; text: string }> {
  const map = /^## The map\n+```\n([\s\S]*?)^```/m.exec(markdown)?.[1];
  if (map === undefined) throw new Error('docs/architecture.md has no map (a code block under "## The map")');
  const lines = map.split('\n');
  const start = lines.indexOf('src-main/core/');
  if (start < 0) throw new Error('the map has no src-main/core/ line');
  const entries: Array<{ folder: string; text: string }> = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ')) break; // the next top-level part of the tree
    const head = /^ {2}([a-z][a-z0-9-]*)\/\s/.exec(line);
    if (head) entries.push({ folder: head[1]!, text: line.slice(head[0].length) });
    else if (/^ {2}\S/.test(line))
      entries.push({ folder: '', text: line }); // the core's own files
    else if (entries.length > 0) entries.at(-1)!.text += ` ${line.trim()}`;
  }
  return entries.filter((e) => e.folder !== '');
}

/** The folders an entry's text names (`events/`, `routes/`): a lower-case word ending in a slash, alone. */
function foldersNamed(text: string): string[] {
  return [...text.matchAll(/(?<=^|[\s(,])([a-z][a-z0-9-]*)\/(?=[\s,.;:)]|$)/g)].map((m) => m[1]!);
}

/** What is wrong between the map and the tree, one line a problem. */
function mapProblems(markdown: string, folders: readonly string[]): string[] {
  const entries = coreEntries(markdown);
  const problems: string[] = [];
  const entryOf = new Map<string, string>();
  for (const e of entries) {
    if (entryOf.has(e.folder)) problems.push(`${e.folder}/ has two entries in the map`);
    entryOf.set(e.folder, `${entryOf.get(e.folder) ?? ''} ${e.text}`);
  }
  for (const folder of folders) {
    const [top, ...rest] = folder.split('/');
    const text = entryOf.get(top!);
    if (text === undefined) problems.push(`src-main/core/${top}/ has no entry in the map`);
    else if (rest.length > 0 && !foldersNamed(text).includes(rest.at(-1)!))
      problems.push(`src-main/core/${folder}/ is not named in the ${top}/ entry of the map`);
  }
  const existing = new Set(folders);
  for (const [top, text] of entryOf) {
    if (!existing.has(top)) problems.push(`the map names src-main/core/${top}/, which does not exist`);
    for (const name of foldersNamed(text)) {
      if (![...existing].some((f) => f.startsWith(`${top}/`) && f.endsWith(`/${name}`))) {
        problems.push(`the ${top}/ entry of the map names ${name}/, which is no folder inside src-main/core/${top}/`);
      }
    }
  }
  return problems;
}

describe('docs/architecture.md names every folder of src-main/core', () => {
  it('each folder has its entry in the map (a folder inside one is named in it), and every folder named exists', () => {
    expect(mapProblems(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'), foldersOf(CORE))).toEqual([]);
  });

  it('catches a folder left out, one named in the wrong entry, one that is gone, and an entry given twice', () => {
    const page = (entries: string) => `# A\n\n## The map\n\n\`\`\`\nsrc-shared/    x\nsrc-main/core/\n${entries}src-main/cli/  y\n\`\`\`\n`;
    const folders = ['http', 'http/routes', 'store', 'store/migrations'];
    const good = '  http/        fastify: app.ts, routes/ (thin).\n  store/       SQL, the files of\n               migrations/.\n  clock.ts, config.ts.\n';
    expect(mapProblems(page(good), folders)).toEqual([]);
    expect(mapProblems(page(good), [...folders, 'scenario'])).toEqual(['src-main/core/scenario/ has no entry in the map']);
    expect(mapProblems(page(good.replace('migrations/.', 'migrations.')), folders)).toEqual([
      'src-main/core/store/migrations/ is not named in the store/ entry of the map',
    ]);
    expect(mapProblems(page(`${good}  net/         gone.\n`), folders)).toEqual(['the map names src-main/core/net/, which does not exist']);
    expect(mapProblems(page(good.replace('routes/ (thin)', 'handlers/ (thin), routes/')), folders)).toEqual([
      'the http/ entry of the map names handlers/, which is no folder inside src-main/core/http/',
    ]);
    expect(mapProblems(page(`${good}  http/        again.\n`), folders)).toEqual(['http/ has two entries in the map']);
  });
});
