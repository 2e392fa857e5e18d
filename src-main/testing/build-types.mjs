#!/usr/bin/env node
/**
 * Type declarations of the npm package (`npm run build:types`, part of `prepack`): tsc emits the
 * declarations of src-main/testing's entries and of everything they import into a cache folder;
 * this keeps only the files the entries' declarations reach, gives their relative imports the `.js`
 * extension Node's ESM resolution (TypeScript's `node16`/`nodenext`) needs, and writes them to
 * out/types, once as .d.ts (ESM, `import` condition) and once as .d.cts (CommonJS, `require` condition).
 * The package's `exports` point `types` at out/types/src-main/testing/{package-main,index,matchers,testcontainers}.d.{ts,cts};
 * `types` and `typesVersions` give the same to TypeScript's `node10` resolution, which reads no `exports`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, 'node_modules/.cache/mailyard-types');
// `node src-main/testing/build-types.mjs [--out DIR]` (default out/types; test/unit/package-exports.test.ts writes into a temporary folder).
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? resolve(process.argv[outArg + 1] ?? '') : join(ROOT, 'out/types');
const ENTRIES = ['src-main/testing/package-main.d.ts', 'src-main/testing/index.d.ts', 'src-main/testing/matchers.d.ts', 'src-main/testing/testcontainers.d.ts'];

rmSync(CACHE, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// tsc writes the declarations even when some file of the program has a type error. An error in a
// file the package's declarations come from fails the build (below); one elsewhere in the program
// (the whole core, since the entries start it) is `npm run typecheck`'s business and only reported.
let diagnostics = '';
try {
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'src-main/testing/tsconfig.types.json')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
} catch (err) {
  diagnostics = String(err.stdout ?? '');
  if (!existsSync(join(CACHE, ENTRIES[0]))) {
    process.stderr.write(diagnostics);
    throw err;
  }
}
const erroredSources = new Set([...diagnostics.matchAll(/^(\S[^(\n]*)\(\d+,\d+\): error/gm)].map((m) => resolve(ROOT, m[1])));

/** `./x` -> `./x.js` or `./x/index.js`, whichever declaration exists. */
function resolveSpecifier(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec);
  if (existsSync(`${base}.d.ts`)) return { file: `${base}.d.ts`, spec: `${spec}.js` };
  if (existsSync(join(base, 'index.d.ts'))) return { file: join(base, 'index.d.ts'), spec: `${spec}/index.js` };
  throw new Error(`${relative(CACHE, fromFile)}: cannot find the declarations of '${spec}'`);
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)(['"])(\.{1,2}\/[^'"]*)\2/gm;
const written = new Map();
const externals = new Set();
const queue = ENTRIES.map((e) => join(CACHE, e));
rmSync(OUT, { recursive: true, force: true });
while (queue.length > 0) {
  const file = queue.shift();
  if (written.has(file)) continue;
  let text = readFileSync(file, 'utf8').replace(SPECIFIER, (_, lead, quote, spec) => {
    const target = resolveSpecifier(file, spec);
    queue.push(target.file);
    return `${lead}${quote}${target.spec}${quote}`;
  });
  // TypeScript's own scanner names the modules a declaration file imports (a regular expression
  // also read `"from", "to"` in a declared tuple of header names as an import of `, `).
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) if (!fileName.startsWith('.')) externals.add(fileName);
  text = text.replace(/\/\/# sourceMappingURL=.*$/m, '');
  const target = join(OUT, relative(CACHE, file));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  // The same declarations as CommonJS ones (.d.cts, imports of .cjs) for the `require` condition:
  // TypeScript under node16/nodenext takes a .d.ts of this `"type": "module"` package for ESM.
  writeFileSync(
    target.replace(/\.d\.ts$/, '.d.cts'),
    text.replace(SPECIFIER, (_, lead, quote, spec) => `${lead}${quote}${spec.replace(/\.js$/, '.cjs')}${quote}`),
  );
  written.set(file, target);
}

const broken = [...written.keys()].map((d) => join(ROOT, relative(CACHE, d)).replace(/\.d\.ts$/, '.ts')).filter((src) => erroredSources.has(src));
if (diagnostics) {
  process.stderr.write(`build-types: tsc reported type errors:\n${diagnostics}`);
  if (broken.length > 0) {
    console.error(`build-types: the package's declarations come from files with type errors: ${broken.map((f) => relative(ROOT, f)).join(', ')}`);
    process.exit(1);
  }
  console.error("build-types: none of them is in a file the package's declarations come from (npm run typecheck checks the rest)");
}

// What the declarations import from packages must be there for the package's users: its runtime
// dependencies, its peer dependencies (testcontainers, for mailyard/testcontainers, which its user
// installs) or Node's own modules (from @types/node, which a TypeScript user of Node has).
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const provided = { ...pkg.dependencies, ...pkg.peerDependencies };
const missing = [...externals].filter((spec) => !spec.startsWith('node:') && !(packageOf(spec) in provided));
if (missing.length > 0) {
  console.error(`build-types: the declarations import packages that are not runtime dependencies: ${missing.join(', ')}`);
  process.exit(1);
}
console.log(
  `build-types: ${written.size} declaration files (.d.ts and .d.cts each) in ${relative(ROOT, OUT)} (imports from packages: ${[...externals].sort().join(', ') || 'none'})`,
);
