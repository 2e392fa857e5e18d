import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** electron-builder.yml and the npm scripts around the desktop app, checked without packaging (that needs downloads). */

const ROOT = resolve(import.meta.dirname, '../../..');
// electron-builder's own modules, resolved from it (they are its dependencies, not ours).
const require = createRequire(createRequire(createRequire(import.meta.url).resolve('electron-builder/package.json')).resolve('app-builder-lib/package.json'));
const yaml = require('js-yaml') as { load(text: string): any };
const config = yaml.load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  main: string;
  allowScripts: Record<string, boolean>;
};

describe('packaging', () => {
  it('electron-builder accepts the configuration', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as { validateConfiguration(c: unknown, log: unknown): Promise<void> };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('builds AppImage and deb, dmg, and nsis, with better-sqlite3 rebuilt for Electron and unpacked', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toContain('**/*.node');
    // package.json's main is the npm package's library entry; the packaged app's is the desktop main process.
    expect(config.extraMetadata.main).toBe('out/main/desktop.js');
    expect(pkg.main).toBe('out/main/index.cjs');
    expect(config.files).toContain('out/**/*');
    // Only what runs: not the npm start step, not better-sqlite3's sources and build leftovers.
    expect(config.files).toContain('!out/main/prepare-native-sqlite.js');
    expect(config.files).toContain('!**/node_modules/better-sqlite3/{deps,src}/**');
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
    });
  });

  it('npm start prepares better-sqlite3 for Electron before launching it; npm run dist packages and restores the Node build', () => {
    expect(pkg.scripts.start).toBe('electron-vite build && node out/main/prepare-native-sqlite.js && electron out/main/desktop.js');
    expect(pkg.scripts.dist).toContain('node build/dist.mjs');
    const dist = readFileSync(join(ROOT, 'build/dist.mjs'), 'utf8');
    expect(dist).toContain("'electron-builder'");
    expect(dist).toContain("['rebuild', 'better-sqlite3']");
    // npm test never packages, and never needs the Electron build.
    expect(pkg.scripts.test).not.toMatch(/dist|electron-builder|prepare-native-sqlite|electron \./);
  });

  it("install scripts: better-sqlite3 builds for Node; the packaging tools' optional ones stay off", () => {
    expect(pkg.allowScripts).toMatchObject({ 'better-sqlite3': true, 'electron-winstaller': false, 'es5-ext': false });
  });
});
