import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeCycle, findCycles } from '../helpers/import-cycles.js';
import { globMatcher, type ImportEdge, isBuiltin, readImportGraph } from '../helpers/import-graph.js';

/**
 * The layers, checked on the imports of every source file (src-main, src-shared, src-renderer),
 * as the compiler resolves them. A failure names each offending import as `file:line -> target`.
 *
 * A rule is one row of RULES: the files it governs (a glob), what they must not import, why, and
 * one import that breaks it (so the row is proved to bite). Type-only imports count like any other:
 * a layer that needs another's types depends on it all the same.
 *
 * Cycles: type-only imports count too. A cycle made only of types does no harm at run time (the
 * compiler erases it), but the rule is "no import cycle anywhere": two files that name each other,
 * even for types, can neither be understood nor moved alone, and an `import type` turns into a
 * value import with one edit. Cycles of types only are marked as such so that they are easy to tell.
 *
 * "The core never imports electron" is checked in test/unit/desktop/bundles.test.ts (source and
 * bundles); it is not repeated here.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DIRS = ['src-main', 'src-shared', 'src-renderer'];

type Forbidden = (edge: Pick<ImportEdge, 'file' | 'specifier' | 'builtin'>) => boolean;

const files =
  (...globs: string[]): Forbidden =>
  (edge) =>
    !!edge.file && globs.some((glob) => globMatcher(glob)(edge.file!));
const builtin: Forbidden = (edge) => edge.builtin;
const except =
  (forbidden: Forbidden, allowed: Forbidden): Forbidden =>
  (edge) =>
    forbidden(edge) && !allowed(edge);

interface Rule {
  name: string;
  from: string;
  forbids: Forbidden;
  why: string;
  /** An import that breaks the rule: `from-file -> specifier-or-file`. */
  example: string;
}

// One row per rule; keep each on one line.
const RULES: Rule[] = [
  {
    name: 'the store is the bottom of the core',
    from: 'src-main/core/store/**',
    forbids: except(files('src-main/**'), files('src-main/core/store/**')),
    why: 'the store serves every layer above it; src-shared and packages are fine',
    example: 'src-main/core/store/db.ts -> src-main/core/services/email/email.service.ts',
  },
  {
    name: 'src-shared touches no Node',
    from: 'src-shared/**',
    forbids: builtin,
    why: 'src-shared runs in the browser too (the renderer bundles it)',
    example: 'src-shared/events.ts -> node:crypto',
  },
  {
    name: 'src-shared imports only src-shared',
    from: 'src-shared/**',
    forbids: files('src-main/**', 'src-renderer/**'),
    why: 'dependencies point one way: src-shared <- core <- cli/desktop, renderer -> src-shared',
    example: 'src-shared/events.ts -> src-main/core/ids.ts',
  },
  {
    name: 'the renderer never imports src-main',
    from: 'src-renderer/**',
    forbids: files('src-main/**'),
    why: 'the UI talks to the emulator over HTTP only, through src-shared clients',
    example: 'src-renderer/App.tsx -> src-main/core/config.ts',
  },
  {
    name: 'the renderer touches no Node',
    from: 'src-renderer/**',
    forbids: builtin,
    why: 'the UI runs in a browser page (and a sandboxed Electron window)',
    example: 'src-renderer/App.tsx -> node:fs',
  },
  {
    name: 'dispatch never imports services',
    from: 'src-main/core/dispatch/**',
    forbids: files('src-main/core/services/**'),
    why: 'the dispatcher delivers what services enqueue; services sit above it',
    example: 'src-main/core/dispatch/dispatcher.ts -> src-main/core/services/events/email-events.service.ts',
  },
  {
    name: 'the core never imports its shells',
    from: 'src-main/core/**',
    forbids: files('src-main/cli/**', 'src-main/desktop/**', 'src-main/testing/**'),
    why: 'the CLI, the desktop app and the testing entry wrap createEmulator, not the other way',
    example: 'src-main/core/config.ts -> src-main/cli/args.ts',
  },
];

/**
 * Folders whose rooms (each folder or file directly inside) must not import each other both ways:
 * inside them, every arrow points down, none back up (a cycle of rooms, even where no two files make one).
 */
const LEVELS = ['src-main/core', 'src-main/core/services'];

/** The imports between the rooms of `level`, each file standing for its room (the folder or file of `level` it lies in). */
function roomEdges(edges: ImportEdge[], level: string): Array<ImportEdge & { origin: string }> {
  const roomOf = (file: string | undefined) => (file?.startsWith(`${level}/`) ? `${level}/${file.slice(level.length + 1).split('/')[0]}` : undefined);
  return edges.flatMap((e) => {
    const from = roomOf(e.from);
    const to = roomOf(e.file);
    return from !== undefined && to !== undefined && from !== to ? [{ ...e, from, file: to, specifier: to, origin: e.from }] : [];
  });
}

function target(edge: ImportEdge): string {
  return edge.file ?? edge.specifier;
}

function breaks(rule: Rule, edge: ImportEdge): boolean {
  return globMatcher(rule.from)(edge.from) && rule.forbids(edge);
}

describe('layering: the import rules hold on the source', () => {
  let graph: ReturnType<typeof readImportGraph>;
  beforeAll(() => {
    graph = readImportGraph(ROOT, DIRS);
  });

  it('reads the whole source and resolves every relative import to a file', () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.edges.filter((e) => e.file).length).toBeGreaterThan(200);
    const unresolved = graph.edges.filter((e) => e.unresolved).map((e) => `${e.from}:${e.line} -> ${e.specifier} (no such file)`);
    expect(unresolved).toEqual([]);
  });

  for (const rule of RULES) {
    it(`${rule.name} (${rule.from})`, () => {
      const offending = graph.edges.filter((edge) => breaks(rule, edge)).map((e) => `${e.from}:${e.line} -> ${target(e)}${e.typeOnly ? ' (type only)' : ''}`);
      expect(offending, `${rule.name}: ${rule.why}`).toEqual([]);
    });
  }

  it('no import cycle anywhere (type-only imports count)', () => {
    const cycles = findCycles(graph.edges).map((c) => `${describeCycle(c)}${c.typeOnly ? ' (types only)' : ''}`);
    expect(cycles).toEqual([]);
  });

  for (const level of LEVELS) {
    it(`no arrow back up between the folders and files of ${level} (type-only imports count)`, () => {
      const edges = roomEdges(graph.edges, level);
      const cycles = findCycles(edges).map((c) => {
        // Each arrow of the loop with the imports that make it, so the one to turn round is found.
        const arrows = c.path.slice(1).map((to, i) => {
          const from = c.path[i]!;
          const by = new Set(edges.filter((e) => e.from === from && e.file === to).map((e) => `${e.origin}:${e.line}`));
          return `${from} -> ${to} (${[...by].slice(0, 3).join(', ')}${by.size > 3 ? ', ...' : ''})`;
        });
        return arrows.join('; ');
      });
      expect(cycles).toEqual([]);
    });
  }
});

describe('layering: the checker itself', () => {
  const edgeOf = (example: string): ImportEdge => {
    const [from, to] = example.split(' -> ') as [string, string];
    const builtinTarget = isBuiltin(to);
    return { from, line: 1, specifier: to, file: builtinTarget ? undefined : to, builtin: builtinTarget, unresolved: false, typeOnly: false };
  };

  for (const rule of RULES) {
    it(`"${rule.name}" catches its example and lets the layer's own imports pass`, () => {
      const example = edgeOf(rule.example);
      expect(breaks(rule, example)).toBe(true);
      expect(breaks(rule, { ...example, file: 'src-shared/errors.ts', specifier: '../errors.js', builtin: false })).toBe(false);
      expect(breaks(rule, { ...example, file: undefined, specifier: 'zod', builtin: false })).toBe(false);
    });
  }

  it('finds each cycle as a path back to its start, every arrow of a tangle named, and marks type-only arrows', () => {
    const edge = (from: string, file: string, typeOnly = false): ImportEdge => ({
      from,
      line: 1,
      specifier: file,
      file,
      builtin: false,
      unresolved: false,
      typeOnly,
    });
    const cycles = findCycles([
      edge('c.ts', 'a.ts'),
      edge('a.ts', 'b.ts'),
      edge('b.ts', 'c.ts'),
      edge('b.ts', 'd.ts'),
      edge('x.ts', 'y.ts', true),
      edge('y.ts', 'x.ts', true),
    ]);
    expect(cycles).toEqual([
      { path: ['a.ts', 'b.ts', 'c.ts', 'a.ts'], typeSteps: [false, false, false], typeOnly: false },
      { path: ['x.ts', 'y.ts', 'x.ts'], typeSteps: [true, true], typeOnly: true },
    ]);
    // Two loops share a file and an arrow (w -> m -> w and w -> t -> m -> w): both are named.
    const tangle = findCycles([edge('w.ts', 'm.ts'), edge('w.ts', 't.ts'), edge('m.ts', 'w.ts', true), edge('t.ts', 'm.ts', true)]);
    expect(tangle.map(describeCycle)).toEqual(['m.ts -(type)-> w.ts -> m.ts', 'm.ts -(type)-> w.ts -> t.ts -(type)-> m.ts']);
    expect(findCycles([edge('s.ts', 's.ts')]).map(describeCycle)).toEqual(['s.ts -> s.ts']);
    const mixed = findCycles([edge('a.ts', 'b.ts'), edge('b.ts', 'a.ts', true)]);
    expect(mixed.map(describeCycle)).toEqual(['a.ts -> b.ts -(type)-> a.ts']);
    expect(findCycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')])).toEqual([]);
  });

  it('finds an arrow back up between rooms of a level, where no two files make a cycle', () => {
    const edge = (from: string, file: string): ImportEdge => ({ from, line: 1, specifier: file, file, builtin: false, unresolved: false, typeOnly: true });
    // error-catalogue.ts takes a type from scenario/parse.ts; scenario/run.ts throws with the catalogue: no file cycle, a room cycle.
    const edges = [
      edge('core/error-catalogue.ts', 'core/scenario/parse.ts'),
      edge('core/scenario/run.ts', 'core/error-catalogue.ts'),
      edge('core/scenario/run.ts', 'core/scenario/parse.ts'),
    ];
    expect(findCycles(edges)).toEqual([]);
    expect(findCycles(roomEdges(edges, 'core')).map(describeCycle)).toEqual([
      'core/error-catalogue.ts -(type)-> core/scenario -(type)-> core/error-catalogue.ts',
    ]);
    expect(roomEdges([edge('core/scenario/run.ts', 'core/scenario/parse.ts')], 'core')).toEqual([]);
  });

  it('reads every kind of import, with its line, and resolves it as the compiler does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layering-'));
    try {
      writeFileSync(
        join(dir, 'tsconfig.base.json'),
        JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', jsx: 'react-jsx', paths: { '@lib/*': ['./src/lib/*'] } } }),
      );
      mkdirSync(join(dir, 'src/lib'), { recursive: true });
      for (const name of ['b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts', 'lib/index.ts', 'lib/g.ts', 'view.tsx', 'style.css'])
        writeFileSync(join(dir, 'src', name), 'export const x = 1;\n');
      const code = [
        "import { x } from './b.js';",
        "import type { T } from './c';",
        "import { type U, type V } from './d';",
        "export { y } from './e';",
        'const f = () => import("./f");',
        "const g = require('@lib/g');",
        "import lib = require('./lib');",
        "type H = typeof import('./view');",
        "import { readFile } from 'node:fs';",
        "import { join } from 'path';",
        "import { z } from 'zod';",
        "import { gone } from './missing';",
        "import './style.css';",
        'const notAnImport = `require("./b")`;',
        'const notLiteral = import(notAnImport);',
      ].join('\n');
      writeFileSync(join(dir, 'src/a.ts'), code);
      const edges = readImportGraph(dir, ['src']).edges.filter((e) => e.from === 'src/a.ts');
      expect(edges.map((e) => [e.line, e.specifier, e.file ?? null, e.builtin, e.unresolved, e.typeOnly])).toEqual([
        [1, './b.js', 'src/b.ts', false, false, false],
        [2, './c', 'src/c.ts', false, false, true],
        [3, './d', 'src/d.ts', false, false, true],
        [4, './e', 'src/e.ts', false, false, false],
        [5, './f', 'src/f.ts', false, false, false],
        [6, '@lib/g', 'src/lib/g.ts', false, false, false],
        [7, './lib', 'src/lib/index.ts', false, false, false],
        [8, './view', 'src/view.tsx', false, false, true],
        [9, 'node:fs', null, true, false, false],
        [10, 'path', null, true, false, false],
        [11, 'zod', null, false, false, false],
        [12, './missing', null, false, true, false],
        [13, './style.css', 'src/style.css', false, false, false],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
