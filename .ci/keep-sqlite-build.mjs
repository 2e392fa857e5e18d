#!/usr/bin/env node
/**
 * better-sqlite3 compiled once per CI run. No prebuilt binary is reachable here (its install asks GitHub,
 * which this network does not resolve), so every install of the packed package would compile SQLite
 * again: the example's, the runners', the docs' fresh project and the image's build. This stores the
 * binary the repository's `npm ci` compiled where better-sqlite3's installer (prebuild-install) looks
 * before it downloads: npm's cache, `_prebuilds/<hash of its download URL>-<file name>`, a .tar.gz of
 * build/Release/better_sqlite3.node. The later installs then unpack it as they would a downloaded one.
 * The image's build reads the same cache (.ci/run mounts it for the RUN steps only); the stand-in base
 * is this machine's Debian and Node, so the binary fits it.
 *
 * Usage (from the repository, after `npm ci`): node .ci/keep-sqlite-build.mjs
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(resolve('package.json'));
const moduleDir = dirname(require.resolve('better-sqlite3/package.json'));
const binary = join(moduleDir, 'build/Release/better_sqlite3.node');
if (!existsSync(binary)) {
  console.error(`keep-sqlite-build: ${binary} is missing: run npm ci first`);
  process.exit(1);
}
// prebuild-install's own code names the file, so the name is the one it looks for.
const fromInstaller = createRequire(require.resolve('prebuild-install/package.json', { paths: [moduleDir] }));
const pkg = require('better-sqlite3/package.json');
process.env.npm_config_cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const util = fromInstaller('./util');
const rc = fromInstaller('./rc')(pkg);
const url = util.getDownloadUrl({ ...rc, pkg });
const cached = util.cachedPrebuild(url);
mkdirSync(dirname(cached), { recursive: true });
execFileSync('tar', ['-czf', cached, '-C', moduleDir, 'build/Release/better_sqlite3.node']);
console.log(`keep-sqlite-build: better-sqlite3 ${pkg.version} for Node ABI ${rc.abi} kept as ${cached} (${Math.round(statSync(cached).size / 1024)} KiB)`);
