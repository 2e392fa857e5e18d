import { join } from 'node:path';

/**
 * One install, two runtimes. `node_modules/better-sqlite3` stays built for Node (tests, `mailyard
 * serve`); the desktop app loads a second copy of its native module, built for Electron's ABI, kept
 * in a folder of its own and handed to better-sqlite3 through its `nativeBinding` option. This file
 * holds the decisions (where that copy lives, whether it must be prepared, which binding the
 * Electron main process loads); prepare-native-sqlite.ts does the preparing. Never imports electron:
 * the preparation runs under plain Node before Electron starts.
 */

export interface ElectronTarget {
  /** better-sqlite3's version (its package.json). */
  sqliteVersion: string;
  /** Electron's version without a leading `v`. */
  electronVersion: string;
  platform: NodeJS.Platform;
  arch: string;
}

/** Where prepared builds live, under the project root: wiped with node_modules, so `npm ci` starts clean. */
export const ELECTRON_SQLITE_CACHE = join('node_modules', '.cache', 'mailyard', 'better-sqlite3-electron');

/** The folder of one build: one per better-sqlite3 version, Electron version, platform and architecture. */
export function electronSqliteDir(projectRoot: string, target: ElectronTarget): string {
  const key = `better-sqlite3-${target.sqliteVersion}-electron-${target.electronVersion.replace(/^v/, '')}-${target.platform}-${target.arch}`;
  return join(projectRoot, ELECTRON_SQLITE_CACHE, key);
}

/** The native module inside a build folder (where prebuild-install and node-gyp both put it). */
export function bindingFileIn(dir: string): string {
  return join(dir, 'build', 'Release', 'better_sqlite3.node');
}

export type NativeSqliteChoice =
  /** A packaged app: electron-builder rebuilt node_modules/better-sqlite3 for Electron; load it as is. */
  | { kind: 'bundled' }
  /** A development run: the prepared build for this Electron. */
  | { kind: 'prepared'; binding: string }
  /** A development run without the prepared build: say how to get it, do not load the Node build. */
  | { kind: 'missing'; expected: string; message: string };

/** Which better-sqlite3 binding the Electron main process loads. */
export function chooseNativeSqlite(input: {
  isPackaged: boolean;
  projectRoot: string;
  target: ElectronTarget;
  exists: (path: string) => boolean;
}): NativeSqliteChoice {
  if (input.isPackaged) return { kind: 'bundled' };
  const binding = bindingFileIn(electronSqliteDir(input.projectRoot, input.target));
  if (input.exists(binding)) return { kind: 'prepared', binding };
  return {
    kind: 'missing',
    expected: binding,
    message:
      `better-sqlite3 has not been built for Electron ${input.target.electronVersion} (${input.target.platform}-${input.target.arch}) yet: ` +
      `expected ${binding}. Start the desktop app with \`npm start\`, which prepares it (or run \`npm run desktop:prepare\`).`,
  };
}

export type PrepareStep =
  /** better-sqlite3's prebuilt binary for this Electron, downloaded by prebuild-install (a few MB). */
  | { kind: 'prebuilt'; args: string[] }
  /** The fallback: compile from the bundled SQLite sources with node-gyp against Electron's headers. */
  | { kind: 'source'; args: string[] };

export type PreparePlan = { kind: 'ready'; binding: string } | { kind: 'prepare'; dir: string; binding: string; steps: PrepareStep[] };

/** What `npm start` must do before launching Electron: nothing when the build is there, else the steps in order. */
export function planNativeSqlite(input: { projectRoot: string; target: ElectronTarget; exists: (path: string) => boolean }): PreparePlan {
  const dir = electronSqliteDir(input.projectRoot, input.target);
  const binding = bindingFileIn(dir);
  if (input.exists(binding)) return { kind: 'ready', binding };
  const { electronVersion, platform, arch } = input.target;
  const version = electronVersion.replace(/^v/, '');
  return {
    kind: 'prepare',
    dir,
    binding,
    steps: [
      { kind: 'prebuilt', args: ['--runtime', 'electron', '--target', version, '--platform', platform, '--arch', arch] },
      {
        kind: 'source',
        args: ['rebuild', '--release', '--runtime=electron', `--target=${version}`, `--arch=${arch}`, '--dist-url=https://electronjs.org/headers'],
      },
    ],
  };
}

/**
 * The environment for the build tools: npm passes its configuration down as `npm_config_*`
 * variables, and a `nodedir` (or a `target`/`runtime`/`disturl`) meant for Node's build would make
 * node-gyp compile against Node's headers instead of Electron's.
 */
export function buildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const dropped = /^npm_config_(nodedir|target|runtime|disturl|dist_url|arch|target_arch|build_from_source)$/i;
  for (const [key, value] of Object.entries(env)) if (!dropped.test(key)) out[key] = value;
  return out;
}
