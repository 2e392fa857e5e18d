import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Reads what `npm run build` wrote (npm test builds first): what each bundle loads at run time,
 * following its own chunks. The CLI must run on plain Node, and no bundle may carry test code or
 * need a package that is not a runtime dependency (electron-builder packs only those).
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const OUT = join(ROOT, 'out');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

interface Closure {
  files: string[];
  packages: Set<string>;
  sources: string;
}

function closure(entry: string): Closure {
  const files: string[] = [];
  const packages = new Set<string>();
  let sources = '';
  const visit = (file: string) => {
    if (files.includes(file)) return;
    files.push(file);
    const code = readFileSync(file, 'utf8');
    sources += code;
    const specifiers = [
      ...code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"'\s]+)["']/gm),
      ...code.matchAll(/^\s*import\s*["']([^"'\s]+)["']/gm),
      ...code.matchAll(/\bimport\(\s*["']([^"'\s]+)["']\s*\)/g),
      ...code.matchAll(/\brequire\(\s*["']([^"'\s]+)["']\s*\)/g),
    ].map((m) => m[1]!);
    for (const spec of specifiers) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(entry);
  return { files, packages, sources };
}

const isBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

describe('the built bundles', () => {
  const built = existsSync(join(OUT, 'main/cli.js')) && existsSync(join(OUT, 'main/desktop.js'));

  it('exist (run `npm run build` first; `npm test` does)', () => {
    expect(built).toBe(true);
  });

  it.runIf(built)('the CLI bundle never imports electron', () => {
    const cli = closure(join(OUT, 'main/cli.js'));
    expect(cli.packages.has('electron')).toBe(false);
    expect(cli.sources).not.toMatch(/\bfrom\s*["']electron["']|require\(\s*["']electron["']\s*\)/);
    // Nor does the step `npm start` runs under plain Node before Electron.
    expect(closure(join(OUT, 'main/prepare-native-sqlite.js')).packages.has('electron')).toBe(false);
  });

  it.runIf(built)('the desktop main bundle and the preload load only runtime dependencies, Node built-ins and electron; no test code', () => {
    const allowed = (name: string) => isBuiltin(name) || name === 'electron' || name in pkg.dependencies;
    for (const entry of ['main/desktop.js', 'main/cli.js', 'preload/preload.cjs']) {
      const bundle = closure(join(OUT, entry));
      expect(
        [...bundle.packages].filter((p) => !allowed(p)),
        entry,
      ).toEqual([]);
      // Bundlers mark each inlined module with its source path: none may come from test/.
      expect(bundle.sources, entry).not.toMatch(/^\/\/ test\//m);
      for (const helper of ['vitest', '@playwright/test', 'maildev', 'mailauth', 'standardwebhooks'])
        expect(bundle.packages.has(helper), `${entry}: ${helper}`).toBe(false);
    }
    expect(closure(join(OUT, 'main/desktop.js')).packages.has('electron')).toBe(true);
  });

  it.runIf(built)('the sandboxed preload is CommonJS and requires nothing but electron', () => {
    const preload = closure(join(OUT, 'preload/preload.cjs'));
    expect(preload.files).toHaveLength(1);
    expect([...preload.packages]).toEqual(['electron']);
  });

  it('the core and the shared code never import electron (source)', () => {
    const offenders = [
      ...sourceFiles(join(ROOT, 'src-main/core')),
      ...sourceFiles(join(ROOT, 'src-shared')),
      ...sourceFiles(join(ROOT, 'src-main/cli')),
    ].filter((file) => /\bfrom\s*["']electron["']|require\(\s*["']electron["']\s*\)|import\(\s*["']electron["']\s*\)/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
