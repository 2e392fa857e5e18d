import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { bindingFileIn, buildEnv, type ElectronTarget, type PreparePlan, planNativeSqlite } from './native-sqlite';

/**
 * `npm start` runs this (built to out/main/prepare-native-sqlite.js) under plain Node before it
 * launches Electron: when better-sqlite3 has no build for the installed Electron yet, it makes one
 * in its own folder (see native-sqlite.ts) and leaves node_modules/better-sqlite3, the Node build,
 * untouched. First prebuild-install (better-sqlite3's prebuilt binary for Electron's ABI, a few MB
 * from the project's releases on GitHub), then node-gyp from the bundled SQLite sources (Electron's
 * headers from electronjs.org and a C++ toolchain). Never imports electron.
 */

export interface PrepareDeps {
  exists: (path: string) => boolean;
  /** Copies better-sqlite3's package (sources, no build) into the staging folder. */
  copyPackage: (from: string, to: string) => void;
  remove: (path: string) => void;
  rename: (from: string, to: string) => void;
  /** Runs a Node script; resolves with its exit status. */
  runNode: (script: string, args: string[], cwd: string) => Promise<number>;
  log: (line: string) => void;
}

export interface PrepareTools {
  /** better-sqlite3's package folder. */
  sqliteDir: string;
  /** prebuild-install's bin.js. */
  prebuildInstall: string;
  /** node-gyp's bin/node-gyp.js, when one is installed. */
  nodeGyp: string | undefined;
}

/** Carries out a plan. Resolves with the binding's path; rejects with a message saying what to do. */
export async function prepareNativeSqlite(plan: PreparePlan, target: ElectronTarget, tools: PrepareTools, deps: PrepareDeps): Promise<string> {
  if (plan.kind === 'ready') return plan.binding;
  const what = `better-sqlite3 ${target.sqliteVersion} for Electron ${target.electronVersion} (${target.platform}-${target.arch})`;
  deps.log(`Mailyard: preparing ${what}, once; node_modules/better-sqlite3 stays the build for Node.`);
  const staging = `${plan.dir}.partial`;
  deps.remove(staging);
  deps.copyPackage(tools.sqliteDir, staging);
  const tried: string[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'prebuilt') {
      deps.log("Mailyard: downloading its prebuilt binary (prebuild-install, from better-sqlite3's GitHub releases)...");
      const status = await deps.runNode(tools.prebuildInstall, step.args, staging);
      if (status === 0 && deps.exists(bindingFileIn(staging))) break;
      tried.push('the prebuilt binary could not be downloaded');
    } else {
      if (!tools.nodeGyp) {
        tried.push('node-gyp is not installed, so it could not be compiled');
        continue;
      }
      deps.log("Mailyard: compiling it from source with node-gyp against Electron's headers (needs a C++ toolchain)...");
      const status = await deps.runNode(tools.nodeGyp, step.args, staging);
      if (status === 0 && deps.exists(bindingFileIn(staging))) break;
      tried.push('compiling it from source failed');
    }
  }
  if (!deps.exists(bindingFileIn(staging))) {
    deps.remove(staging);
    throw new Error(
      `could not prepare ${what}: ${tried.join('; ')}. The desktop app needs network access to GitHub once ` +
        '(or Python, make and a C++ compiler for the source build). `npm run serve` and `npm test` do not need it.',
    );
  }
  deps.remove(plan.dir);
  deps.rename(staging, plan.dir);
  deps.log(`Mailyard: ${what} ready in ${plan.dir}`);
  return plan.binding;
}

function runNode(script: string, args: string[], cwd: string): Promise<number> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env: buildEnv(process.env), stdio: 'inherit' });
    child.on('error', () => done(1));
    child.on('exit', (code) => done(code ?? 1));
  });
}

/** Copies a package's files for a build of its own: its `build` (the Node build) and `node_modules` stay behind. */
export function copyPackageSources(from: string, to: string): void {
  cpSync(from, to, {
    recursive: true,
    filter: (src) => {
      const top = src.slice(from.length).split(/[\\/]/).find(Boolean);
      return top !== 'build' && top !== 'node_modules';
    },
  });
}

const realDeps: PrepareDeps = {
  exists: existsSync,
  copyPackage: copyPackageSources,
  remove: (path) => rmSync(path, { recursive: true, force: true }),
  rename: renameSync,
  runNode,
  log: (line) => process.stdout.write(`${line}\n`),
};

function optionalResolve(require: NodeJS.Require, id: string): string | undefined {
  try {
    return require.resolve(id);
  } catch {
    return undefined;
  }
}

/** The command: prepares the build for the Electron in node_modules when it is missing. */
export async function main(projectRoot: string): Promise<number> {
  const require = createRequire(join(projectRoot, 'package.json'));
  const sqlitePackage = require.resolve('better-sqlite3/package.json');
  const sqliteDir = dirname(sqlitePackage);
  const fromSqlite = createRequire(sqlitePackage);
  const readVersion = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  const target: ElectronTarget = {
    sqliteVersion: readVersion(sqlitePackage),
    electronVersion: readVersion(require.resolve('electron/package.json')),
    platform: process.platform,
    arch: process.arch,
  };
  const tools: PrepareTools = {
    sqliteDir,
    prebuildInstall: fromSqlite.resolve('prebuild-install/bin.js'),
    nodeGyp: optionalResolve(require, 'node-gyp/bin/node-gyp.js') ?? process.env.npm_config_node_gyp,
  };
  const plan = planNativeSqlite({ projectRoot, target, exists: existsSync });
  try {
    await prepareNativeSqlite(plan, target, tools, realDeps);
    return 0;
  } catch (err) {
    process.stderr.write(`Mailyard: ${(err as Error).message}\n`);
    return 1;
  }
}

// Run as a script: out/main/prepare-native-sqlite.js, two levels below the project root.
if (process.argv[1] && basename(process.argv[1]).startsWith('prepare-native-sqlite')) {
  void main(resolve(import.meta.dirname, '..', '..')).then((code) => {
    process.exitCode = code;
  });
}
