import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { bindingFileIn, buildEnv, chooseNativeSqlite, type ElectronTarget, electronSqliteDir, planNativeSqlite } from '../../../src-main/desktop/native-sqlite';
import { type PrepareDeps, prepareNativeSqlite } from '../../../src-main/desktop/prepare-native-sqlite';

const ROOT = '/work/app';
const TARGET: ElectronTarget = { sqliteVersion: '12.11.1', electronVersion: '45.4.1', platform: 'linux', arch: 'x64' };
const DIR = join(ROOT, 'node_modules/.cache/mailyard/better-sqlite3-electron/better-sqlite3-12.11.1-electron-45.4.1-linux-x64');
const BINDING = join(DIR, 'build/Release/better_sqlite3.node');

describe('where the Electron build of better-sqlite3 lives', () => {
  it('is one folder per better-sqlite3 version, Electron version, platform and architecture, beside the Node build', () => {
    expect(electronSqliteDir(ROOT, TARGET)).toBe(DIR);
    expect(electronSqliteDir(ROOT, { ...TARGET, electronVersion: 'v45.4.1' })).toBe(DIR);
    expect(electronSqliteDir(ROOT, { ...TARGET, arch: 'arm64' })).not.toBe(DIR);
    expect(electronSqliteDir(ROOT, { ...TARGET, electronVersion: '46.0.0' })).not.toBe(DIR);
    expect(bindingFileIn(DIR)).toBe(BINDING);
    // Never node_modules/better-sqlite3 itself: tests and `mailyard serve` keep the Node build.
    expect(DIR.startsWith(join(ROOT, 'node_modules/better-sqlite3'))).toBe(false);
  });
});

describe('chooseNativeSqlite (the Electron main process)', () => {
  it('uses the module as packaged in a packaged app (electron-builder rebuilt it for Electron)', () => {
    const exists = vi.fn(() => false);
    expect(chooseNativeSqlite({ isPackaged: true, projectRoot: ROOT, target: TARGET, exists })).toEqual({ kind: 'bundled' });
    expect(exists).not.toHaveBeenCalled();
  });

  it('uses the prepared build in development', () => {
    expect(chooseNativeSqlite({ isPackaged: false, projectRoot: ROOT, target: TARGET, exists: (p) => p === BINDING })).toEqual({
      kind: 'prepared',
      binding: BINDING,
    });
  });

  it('says how to prepare it when it is missing, instead of loading the Node build', () => {
    const choice = chooseNativeSqlite({ isPackaged: false, projectRoot: ROOT, target: TARGET, exists: () => false });
    expect(choice).toMatchObject({ kind: 'missing', expected: BINDING });
    expect(choice.kind === 'missing' && choice.message).toMatch(/Electron 45\.4\.1 \(linux-x64\).*npm start/);
  });
});

describe('planNativeSqlite (npm start, before Electron)', () => {
  it('does nothing when the build is there', () => {
    expect(planNativeSqlite({ projectRoot: ROOT, target: TARGET, exists: (p) => p === BINDING })).toEqual({ kind: 'ready', binding: BINDING });
  });

  it('tries the prebuilt binary for Electron first, then a source build against Electron headers', () => {
    const plan = planNativeSqlite({ projectRoot: ROOT, target: TARGET, exists: () => false });
    expect(plan).toEqual({
      kind: 'prepare',
      dir: DIR,
      binding: BINDING,
      steps: [
        { kind: 'prebuilt', args: ['--runtime', 'electron', '--target', '45.4.1', '--platform', 'linux', '--arch', 'x64'] },
        {
          kind: 'source',
          args: ['rebuild', '--release', '--runtime=electron', '--target=45.4.1', '--arch=x64', '--dist-url=https://electronjs.org/headers'],
        },
      ],
    });
  });

  it('keeps npm settings meant for the Node build away from the build tools', () => {
    const env = buildEnv({
      PATH: '/bin',
      npm_config_nodedir: '/usr',
      npm_config_target: '20.0.0',
      npm_config_runtime: 'node',
      npm_config_cache: '/c',
      HOME: '/h',
    });
    expect(env).toEqual({ PATH: '/bin', npm_config_cache: '/c', HOME: '/h' });
  });
});

describe('prepareNativeSqlite', () => {
  const tools = { sqliteDir: '/nm/better-sqlite3', prebuildInstall: '/nm/prebuild-install/bin.js', nodeGyp: '/nm/node-gyp/bin/node-gyp.js' };
  const plan = planNativeSqlite({ projectRoot: ROOT, target: TARGET, exists: () => false });
  const staged = bindingFileIn(`${DIR}.partial`);

  function deps(outcomes: Record<string, boolean>): PrepareDeps & { files: Set<string>; calls: string[] } {
    const files = new Set<string>();
    const calls: string[] = [];
    return {
      files,
      calls,
      exists: (path) => files.has(path),
      copyPackage: (from, to) => calls.push(`copy ${from} -> ${to}`),
      remove: (path) => {
        calls.push(`remove ${path}`);
        for (const f of [...files]) if (f.startsWith(`${path}/`)) files.delete(f);
      },
      rename: (from, to) => {
        calls.push(`rename ${from} -> ${to}`);
        for (const f of [...files]) {
          if (!f.startsWith(`${from}/`)) continue;
          files.delete(f);
          files.add(to + f.slice(from.length));
        }
      },
      runNode: async (script, _args, cwd) => {
        calls.push(`run ${script} in ${cwd}`);
        if (outcomes[script]) files.add(staged);
        return outcomes[script] ? 0 : 1;
      },
      log: () => {},
    };
  }

  it('does nothing when ready', async () => {
    const d = deps({});
    expect(await prepareNativeSqlite({ kind: 'ready', binding: BINDING }, TARGET, tools, d)).toBe(BINDING);
    expect(d.calls).toEqual([]);
  });

  it('stages a copy, downloads the prebuilt binary into it, and moves it into place', async () => {
    const d = deps({ [tools.prebuildInstall]: true });
    expect(await prepareNativeSqlite(plan, TARGET, tools, d)).toBe(BINDING);
    expect(d.calls).toEqual([
      `remove ${DIR}.partial`,
      `copy /nm/better-sqlite3 -> ${DIR}.partial`,
      `run ${tools.prebuildInstall} in ${DIR}.partial`,
      `remove ${DIR}`,
      `rename ${DIR}.partial -> ${DIR}`,
    ]);
    expect(d.files.has(BINDING)).toBe(true);
  });

  it('compiles from source when the download fails', async () => {
    const d = deps({ [tools.prebuildInstall]: false, [tools.nodeGyp]: true });
    expect(await prepareNativeSqlite(plan, TARGET, tools, d)).toBe(BINDING);
    expect(d.calls.filter((c) => c.startsWith('run'))).toEqual([`run ${tools.prebuildInstall} in ${DIR}.partial`, `run ${tools.nodeGyp} in ${DIR}.partial`]);
  });

  it('fails with a message saying what was tried and what needs it, leaving nothing half-made', async () => {
    const d = deps({});
    await expect(prepareNativeSqlite(plan, TARGET, tools, d)).rejects.toThrow(
      /could not prepare better-sqlite3 12\.11\.1 for Electron 45\.4\.1 \(linux-x64\): the prebuilt binary could not be downloaded; compiling it from source failed\..*npm run serve/,
    );
    expect(d.calls.at(-1)).toBe(`remove ${DIR}.partial`);
    expect(d.calls.some((c) => c.startsWith('rename'))).toBe(false);
    const noGyp = deps({});
    await expect(prepareNativeSqlite(plan, TARGET, { ...tools, nodeGyp: undefined }, noGyp)).rejects.toThrow(/node-gyp is not installed/);
  });
});

describe('the pieces that touch the disk', () => {
  it('copies better-sqlite3 for a build of its own without its Node build', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, existsSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { copyPackageSources } = await import('../../../src-main/desktop/prepare-native-sqlite');
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-native-'));
    const from = join(dir, 'better-sqlite3');
    for (const sub of ['build/Release', 'deps/sqlite3', 'src', 'node_modules/x', 'lib']) mkdirSync(join(from, sub), { recursive: true });
    for (const file of [
      'package.json',
      'binding.gyp',
      'build/Release/better_sqlite3.node',
      'deps/sqlite3/sqlite3.c',
      'src/better_sqlite3.cpp',
      'node_modules/x/index.js',
      'lib/index.js',
    ]) {
      writeFileSync(join(from, file), 'x');
    }
    const to = join(dir, 'staged');
    copyPackageSources(from, to);
    for (const file of ['package.json', 'binding.gyp', 'deps/sqlite3/sqlite3.c', 'src/better_sqlite3.cpp', 'lib/index.js'])
      expect(existsSync(join(to, file)), file).toBe(true);
    expect(existsSync(join(to, 'build'))).toBe(false);
    expect(existsSync(join(to, 'node_modules'))).toBe(false);
  });

  it('the store loads the native binding it is given (the desktop passes its Electron build this way)', async () => {
    const { createRequire } = await import('node:module');
    const { openDatabase } = await import('../../../src-main/core/store/database');
    const { createEmulator } = await import('../../../src-main/core');
    const sqliteDir = join(createRequire(import.meta.url).resolve('better-sqlite3/package.json'), '..');
    // Here the only build is the one for Node: handed over explicitly, it is the one loaded.
    const db = openDatabase(null, { nativeBinding: bindingFileIn(sqliteDir) });
    expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
    db.close();
    const missing = join(sqliteDir, 'no-such-build', 'better_sqlite3.node');
    expect(() => openDatabase(null, { nativeBinding: missing })).toThrow();
    await expect(createEmulator({ memory: true, logLevel: 'silent', httpPort: 0, smtpPort: 0 }, { sqliteNativeBinding: missing })).rejects.toThrow();
  });
});
