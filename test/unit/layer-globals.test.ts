import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Each layer is type-checked with only the globals its runtime has: src-shared runs in the browser
 * and in Node, so it gets neither the DOM's types nor Node's; the renderer gets the DOM, src-main
 * Node. The import rules (layering.test.ts) cannot see this: a `Buffer` or a `document` needs no
 * import. So lines of code are checked here as if each were a file of the layer: one program per
 * layer, its own tsconfig.json and files plus the probes (held in memory, never written), and only
 * the probes are checked.
 */

const ROOT = resolve(import.meta.dirname, '../..');

interface LayerCase {
  /** Each line, a probe file of its own, must fail naming this global. */
  fails: Record<string, string>;
  /** What the layer's runtime has: one probe file that must pass. */
  passes: string;
  /** The type libraries its program may hold (see runtimesOf). */
  runtimes: string[];
}

const CASES: Record<'src-shared' | 'src-renderer' | 'src-main', LayerCase> = {
  'src-shared': {
    fails: {
      Buffer: "export const b = Buffer.from('x');",
      process: 'export const p = process.env;',
      document: 'export const t = document.title;',
      window: 'export const w = window;',
    },
    // The globals both runtimes have that the folder uses (web-globals.d.ts), and ES2023.
    passes: "export const h = new URL('http://a.test/').hostname;\nexport const f = fetch;\nexport const l = [1].findLast((n) => n > 0);",
    runtimes: [],
  },
  'src-renderer': {
    fails: { Buffer: "export const b = Buffer.from('x');", process: 'export const p = process.env;', require: "export const fs = require('node:fs');" },
    passes: 'export const t = document.title;\nexport const dev = import.meta.env.DEV;',
    runtimes: ['dom'],
  },
  'src-main': {
    fails: { document: 'export const t = document.title;', window: 'export const w = window;' },
    passes: "export const b = Buffer.from('x');\nexport const p = process.env;",
    runtimes: ['node'],
  },
};

// Library files (lib.*.d.ts, @types, zod) parsed once for all three programs.
const parsed = new Map<string, ts.SourceFile>();

/** The layer's program with `probes` (name -> code) as more of its files, at `<layer>/probe-<name>.ts`. */
function programWith(layer: string, probes: Record<string, string>): { program: ts.Program; probePath: (name: string) => string } {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, layer, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`${layer}/tsconfig.json could not be read`);
  expect(config.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  const probePath = (name: string) => join(ROOT, layer, `probe-${name}.ts`).replaceAll('\\', '/');
  const code = new Map(Object.entries(probes).map(([name, text]) => [probePath(name), text]));
  const host = ts.createCompilerHost(config.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const probe = code.get(name);
    if (probe !== undefined) return ts.createSourceFile(name, probe, language);
    if (!name.includes('/node_modules/')) return getSourceFile.call(host, name, language, ...rest);
    const key = `${name}:${JSON.stringify(language)}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile.call(host, name, language, ...rest)!);
    return parsed.get(key);
  };
  host.fileExists = (name) => code.has(name) || fileExists.call(host, name);
  host.readFile = (name) => code.get(name) ?? readFile.call(host, name);
  // Without the project references, the files the layer imports from src-shared come in as source
  // (where `tsc -b` reads their declarations): whatever globals they pull in, the layer sees too.
  const program = ts.createProgram({ rootNames: [...config.fileNames, ...code.keys()], options: config.options, host });
  return { program, probePath };
}

/** The type libraries in a program: `dom` (lib.dom.d.ts), `node` (@types/node). */
function runtimesOf(program: ts.Program): string[] {
  const names = program.getSourceFiles().map((f) => f.fileName);
  return [
    ...(names.some((n) => /\/typescript\/lib\/lib\.dom(\.[\w.]+)?\.d\.ts$/.test(n)) ? ['dom'] : []),
    ...(names.some((n) => n.includes('/node_modules/@types/node/')) ? ['node'] : []),
  ];
}

describe.each(Object.entries(CASES))('%s is checked with only the globals its runtime has', (layer, { fails, passes, runtimes }) => {
  let errorsOf: (probe: string) => string[];
  let program: ts.Program;

  beforeAll(() => {
    const built = programWith(layer, { ...fails, passes });
    program = built.program;
    errorsOf = (probe) => {
      const file = program.getSourceFile(built.probePath(probe))!;
      return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, ' '),
      );
    };
  });

  it.each(Object.keys(fails))('a file of the layer using %s fails the typecheck', (name) => {
    expect(errorsOf(name)).toEqual([expect.stringContaining(`Cannot find name '${name}'`)]);
  });

  it(`what its runtime has passes; its program holds ${runtimes.join(' and ') || 'neither the DOM nor Node'}`, () => {
    expect(errorsOf('passes')).toEqual([]);
    expect(runtimesOf(program)).toEqual(runtimes);
  });
});

it('npm run typecheck builds every layer (tsc -b on the solution, tsconfig.json)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.typecheck).toMatch(/^tsc (-b|--build)( tsconfig\.json)?$/);
  const solution = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config as { references: Array<{ path: string }> };
  expect(solution.references.map((r) => r.path).sort()).toEqual([...Object.keys(CASES), 'test'].sort());
});
