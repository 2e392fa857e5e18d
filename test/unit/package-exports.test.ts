/**
 * The npm package's entry points as its users' tools read them: `exports` (import/require/types),
 * `main`, `types` and `typesVersions` (TypeScript's node10), `files`. The library build
 * (build/library.mjs, into a temporary folder) is loaded with `require` and `import` in a child Node:
 * both export the same names, and only the entries' own, and neither loads the parts loaded on first use.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
type Conditions = { import: { types: string; default: string }; require: { types: string; default: string } };
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  typesVersions: Record<string, Record<string, string[]>>;
  exports: Record<string, Conditions | string>;
  files: string[];
  scripts: Record<string, string>;
};
const entries = {
  '.': pkg.exports['.'] as Conditions,
  './testing': pkg.exports['./testing'] as Conditions,
  './testing/matchers': pkg.exports['./testing/matchers'] as Conditions,
  './testcontainers': pkg.exports['./testcontainers'] as Conditions,
};
const inFiles = (path: string) => pkg.files.some((f) => path.replace(/^\.\//, '').startsWith(f.replace(/\/$/, '')));

describe('package.json', () => {
  it('has import and require conditions with their own types for every entry, all in `files`', () => {
    for (const [name, conditions] of Object.entries(entries)) {
      expect(conditions, name).toBeDefined();
      expect(conditions.import.default, name).toMatch(/\.js$/);
      expect(conditions.import.types, name).toMatch(/\.d\.ts$/);
      expect(conditions.require.default, name).toMatch(/\.cjs$/);
      expect(conditions.require.types, name).toMatch(/\.d\.cts$/);
      for (const path of [conditions.import.default, conditions.import.types, conditions.require.default, conditions.require.types])
        expect(inFiles(path), path).toBe(true);
    }
  });

  it("main is the library (CommonJS), not the Electron entry; node10 finds every entry's types", () => {
    expect(`./${pkg.main}`).toBe(entries['.'].require.default);
    expect(`./${pkg.types}`).toBe(entries['.'].import.types);
    expect(pkg.typesVersions['*']?.testing?.map((p) => `./${p}`)).toEqual([entries['./testing'].import.types]);
    expect(pkg.typesVersions['*']?.['testing/matchers']?.map((p) => `./${p}`)).toEqual([entries['./testing/matchers'].import.types]);
    expect(pkg.typesVersions['*']?.testcontainers?.map((p) => `./${p}`)).toEqual([entries['./testcontainers'].import.types]);
    // Electron reads `main`: the desktop app is started by path instead.
    expect(pkg.scripts.start).toMatch(/electron out\/main\/desktop\.js$/);
    expect(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')).toMatch(/extraMetadata:\s*\n\s*main: out\/main\/desktop\.js/);
  });

  describe('the library build (build/library.mjs, into a temporary folder)', () => {
    let out: string;
    beforeAll(() => {
      out = mkdtempSync(join(tmpdir(), 'mailyard-library-'));
      execFileSync(process.execPath, [join(ROOT, 'build/library.mjs'), '--out', out], { cwd: ROOT, encoding: 'utf8' });
      // The build as in the package: a "type": "module" folder whose packages resolve (here: the repository's).
      writeFileSync(join(out, 'package.json'), '{"type": "module"}');
      symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'));
    }, 60_000);
    afterAll(() => rmSync(out, { recursive: true, force: true }));

    /** Runs `script` (CommonJS) in a child Node in the build's folder; its output is JSON. */
    const probe = <T>(script: string): T => {
      writeFileSync(join(out, 'probe.cjs'), script);
      return JSON.parse(execFileSync(process.execPath, [join(out, 'probe.cjs')], { cwd: out, encoding: 'utf8' })) as T;
    };

    it('the built entries load with require and import and export only their own names', () => {
      const names = probe<{ cjs: string[][]; esm: string[][] }>(`
        const main = require('./index.cjs'), testing = require('./testing.cjs'), matchers = require('./matchers.cjs');
        Promise.all([import('./index.js'), import('./testing.js'), import('./matchers.js')]).then(([m, t, x]) =>
          console.log(JSON.stringify({ cjs: [Object.keys(main), Object.keys(testing), Object.keys(matchers)], esm: [Object.keys(m), Object.keys(t), Object.keys(x)] })));`);
      const testingNames = ['ApiError', 'ControlClient', 'ServiceClient', 'VERSION', 'WaitTimeoutError', 'startMailyard'];
      for (const [main, testing, matchers] of [names.cjs, names.esm]) {
        expect(testing).toEqual(expect.arrayContaining(testingNames));
        expect(main).toEqual(expect.arrayContaining([...testingNames, 'createEmulator']));
        expect(matchers).toEqual(['mailyardMatchers']);
        // No mangled one-letter exports of shared chunks (`t`).
        expect([...main!, ...testing!, ...matchers!].filter((n) => n.length <= 2)).toEqual([]);
      }
      expect(names.cjs.map((n) => [...n].sort())).toEqual(names.esm.map((n) => [...n].sort()));
    });

    // A matcher turns the waits' time-out into a failed expectation (any other error is thrown): that holds only
    // if the matchers entry knows the very WaitTimeoutError class mailyard/testing's waits throw.
    it("the matchers take mailyard/testing's WaitTimeoutError as a failed match (import and require)", () => {
      const verdicts = probe<string[]>(`
        const check = ({ mailyardMatchers }, { WaitTimeoutError }) => {
          const yard = { waitForMessage: () => Promise.reject(new WaitTimeoutError('waitForMessage: nothing matched', [])) };
          return mailyardMatchers.toHaveReceivedEmail.call({}, yard, { subject: 'x' }).then((r) => r.pass + ': ' + r.message());
        };
        Promise.all([
          check(require('./matchers.cjs'), require('./testing.cjs')),
          Promise.all([import('./matchers.js'), import('./testing.js')]).then(([m, t]) => check(m, t)),
        ]).then((v) => console.log(JSON.stringify(v)));`);
      expect(verdicts).toEqual([expect.stringMatching(/^false: .*nothing matched/s), expect.stringMatching(/^false: .*nothing matched/s)]);
    });

    it('mailyard/testcontainers loads with require and import (testcontainers, its peer, installed) and exports its own names', () => {
      const names = probe<{ cjs: string[]; esm: string[] }>(`
        const cjs = require('./testcontainers.cjs');
        import('./testcontainers.js').then((esm) => console.log(JSON.stringify({ cjs: Object.keys(cjs), esm: Object.keys(esm) })));`);
      const own = ['MAILYARD_HTTP_PORT', 'MAILYARD_IMAGE', 'MAILYARD_SMTP_PORT', 'MailyardContainer', 'StartedMailyardContainer'];
      expect([...names.cjs].sort()).toEqual(own);
      expect([...names.esm].sort()).toEqual(own);
    });

    // Every test file a runner isolates imports mailyard/testing again: what most tests never use (IMAP,
    // the checks, scenarios' YAML, STARTTLS's certificate maker, the relay, reading, composing and signing
    // MIME) loads on first use, the UI's file serving and the logger with the start. The packages a process holds are in require.cache,
    // whichever way they were loaded.
    it('importing mailyard/testing (import or require) loads none of the parts loaded on first use', () => {
      // nodemailer's small MIME helpers (addresses, encodings) are used at import; its transports, composer and signer are not.
      // testcontainers too: an optional peer, for mailyard/testcontainers only.
      const lazy = ['imapflow', 'mailparser', 'libmime', 'he', 'yaml', 'selfsigned', 'htmlparser2', '@jsx-email/doiuse-email', 'pino', 'testcontainers'];
      const lazyNodemailer = ['nodemailer.js', 'mail-composer', 'smtp-transport', 'dkim'];
      const loaded = (entry: string) =>
        probe<{ packages: string[]; nodemailer: string[]; chunks: string[] }>(`
          Promise.resolve(${entry}).then(() => {
            const files = Object.keys(require.cache);
            const packages = [...new Set(files.map((f) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean))];
            const nodemailer = files.map((f) => /nodemailer\\/dist\\/cjs\\/([^/]+)/.exec(f)?.[1]).filter(Boolean);
            console.log(JSON.stringify({ packages, nodemailer, chunks: files.filter((f) => f.includes('/chunks/')).map((f) => f.replace(/.*\\//, '')) }));
          });`);
      for (const entry of ["require('./testing.cjs')", "import('./testing.js')"]) {
        const { packages, nodemailer, chunks } = loaded(entry);
        expect(packages, entry).toContain('fastify');
        expect(
          packages.filter((p) => lazy.includes(p)),
          entry,
        ).toEqual([]);
        expect(
          nodemailer.filter((m) => lazyNodemailer.includes(m)),
          entry,
        ).toEqual([]);
        expect(
          chunks.filter((c) => /^(static|links|compat)-/.test(c)),
          entry,
        ).toEqual([]);
      }
    });
  });

  it('the type declarations build, exist where `exports` points, and import only runtime and peer dependencies', () => {
    const out = mkdtempSync(join(tmpdir(), 'mailyard-types-'));
    try {
      // The script exits 1 naming any import of a package that is not a runtime dependency.
      const log = execFileSync(process.execPath, [join(ROOT, 'src-main/testing/build-types.mjs'), '--out', out], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const imported = /imports from packages: ([^)]*)\)/.exec(log)?.[1]?.split(', ') ?? [];
      expect(imported).toContain('zod');
      // A peer (testcontainers, for mailyard/testcontainers) is installed by whoever imports that entry.
      const runtime = Object.keys({ ...(pkg as { dependencies?: object }).dependencies, ...(pkg as { peerDependencies?: object }).peerDependencies });
      for (const name of imported) {
        const pkgName = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!;
        expect(runtime, name).toContain(pkgName);
        // A user's type check reads these declarations: the package must bring its own types (better-sqlite3's
        // live in @types/better-sqlite3, which a user of Mailyard does not have).
        const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', pkgName, 'package.json'), 'utf8')) as {
          main?: string;
          types?: string;
          typings?: string;
          exports?: unknown;
        };
        // Or a declaration beside `main` (testcontainers: build/index.js and build/index.d.ts).
        const besideMain =
          manifest.main && existsSync(join(ROOT, 'node_modules', pkgName, manifest.main.replace(/\.js$/, '.d.ts'))) ? 'beside main' : undefined;
        expect(
          manifest.types ?? manifest.typings ?? JSON.stringify(manifest.exports ?? {}).match(/"types"/)?.[0] ?? besideMain,
          `${pkgName} ships its own types`,
        ).toBeTruthy();
      }
      for (const conditions of Object.values(entries)) {
        for (const types of [conditions.import.types, conditions.require.types]) {
          expect(readFileSync(join(out, types.replace(/^\.\/out\/types\//, '')), 'utf8'), types).toMatch(/export/);
        }
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
