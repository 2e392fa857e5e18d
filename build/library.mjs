#!/usr/bin/env node
/**
 * The npm package's library entries, `mailyard` (src-main/testing/package-main.ts), `mailyard/testing`
 * (src-main/testing/index.ts), `mailyard/testing/matchers` (src-main/testing/matchers.ts) and
 * `mailyard/testcontainers` (src-main/testing/testcontainers.ts), built twice: ESM
 * (out/main/{index,testing,matchers,testcontainers}.js, chunks in out/main/chunks/) and CommonJS
 * (out/main/{index,testing,matchers,testcontainers}.cjs, chunks in
 * out/main/chunks/*.cjs), so both `import` and `require` (jest's default mode) load them as they come.
 * Runs after `electron-vite build` (`npm run build`), which empties out/main and builds the CLI and
 * the desktop app's main process.
 *
 * Runtime dependencies stay outside the bundle (`npm install` brings them). The @fastify/static tree
 * is bundled: it `require()`s content-disposition 3, which is ESM-only; Node >= 20.19 can require ESM,
 * jest's module loader cannot (in either of its modes). Both are devDependencies, so electron-vite
 * bundles them into the CLI and the desktop app too, and an install of the package does not fetch them.
 *
 * Each entry exports only what its source exports (`preserveEntrySignatures: 'strict'`): shared code
 * goes into chunks, never out as a mangled extra export of an entry. Being one build, the entries share
 * those chunks: the matchers catch the very `WaitTimeoutError` class the waits of `mailyard/testing` throw.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'vite';

const ROOT = resolve(import.meta.dirname, '..');
// `node build/library.mjs [--out DIR]` (default out/main; test/unit/package-exports.test.ts builds into a temporary folder).
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? resolve(process.argv[outArg + 1] ?? '') : join(ROOT, 'out/main');
const BUNDLED_ROOTS = ['@fastify/static', 'content-disposition'];

/** The package's folder as Node finds it from `fromDir` (walking up through node_modules). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`build/library: cannot find ${name} from ${fromDir}`);
  }
}

/** Every package name in the dependency trees of `roots` (installed as Node would find them). */
function dependencyTree(roots) {
  const names = new Set();
  const seen = new Set();
  const walk = (name, fromDir) => {
    const dir = packageDir(name, fromDir);
    if (seen.has(dir)) return;
    seen.add(dir);
    names.add(name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) walk(dep, dir);
  };
  for (const root of roots) walk(root, ROOT);
  return [...names];
}

const bundled = dependencyTree(BUNDLED_ROOTS);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
// Runtime dependencies, and peer dependencies (testcontainers, which the user installs), stay imports.
const runtime = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].filter((name) => !bundled.includes(name));
const isExternal = (id) => id.startsWith('node:') || builtinModules.includes(id) || runtime.some((name) => id === name || id.startsWith(`${name}/`));

/** @param {'es' | 'cjs'} format */
async function buildFormat(format) {
  const ext = format === 'es' ? 'js' : 'cjs';
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    // CommonJS has no import.meta: the bundle's own folder is __dirname there.
    define: format === 'cjs' ? { 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' } : {},
    ssr: { target: 'node', noExternal: bundled },
    build: {
      ssr: true,
      target: 'node20',
      outDir: OUT,
      emptyOutDir: false,
      minify: false,
      sourcemap: false,
      copyPublicDir: false,
      rollupOptions: {
        input: {
          index: join(ROOT, 'src-main/testing/package-main.ts'),
          testing: join(ROOT, 'src-main/testing/index.ts'),
          matchers: join(ROOT, 'src-main/testing/matchers.ts'),
          testcontainers: join(ROOT, 'src-main/testing/testcontainers.ts'),
          // The mail thread's program, an ES module either way: the CommonJS entries start it too.
          ...(format === 'es' ? { 'mail-worker': join(ROOT, 'src-main/core/services/mail-thread/worker.ts') } : {}),
        },
        external: isExternal,
        preserveEntrySignatures: 'strict',
        output: {
          format,
          exports: 'named',
          // A part loaded on first use is `import()`ed; in CommonJS it is `require()`d (jest's CommonJS
          // mode cannot run `import()` without --experimental-vm-modules).
          dynamicImportInCjs: false,
          entryFileNames: `[name].${ext}`,
          chunkFileNames: `chunks/[name]-[hash].${ext}`,
          // No JSDoc in the bundle: types come from out/types; bundled packages' JSDoc holds `import("./types")` that is not code.
          comments: { jsdoc: false, legal: true, annotation: true },
        },
      },
    },
  });
}

await buildFormat('es');
await buildFormat('cjs');
console.log(`build/library: ${OUT}/{index,testing,matchers,testcontainers}.{js,cjs}, mail-worker.js (bundled with them: ${bundled.join(', ')})`);
