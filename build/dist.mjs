// `npm run dist`: packages the desktop app with electron-builder (electron-builder.yml), passing on
// any arguments (`npm run dist -- --linux AppImage`), then puts node_modules/better-sqlite3 back to
// its build for Node: electron-builder rebuilds it for Electron in place, and tests and
// `mailyard serve` need the Node build. Exits with electron-builder's status.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const shell = process.platform === 'win32';
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit', shell }).status ?? 1;

const status = run('npx', ['--no-install', 'electron-builder', '--publish', 'never', ...process.argv.slice(2)]);
console.log('\nMailyard: restoring node_modules/better-sqlite3 to its build for Node (npm rebuild better-sqlite3)...');
const restored = run('npm', ['rebuild', 'better-sqlite3']);
if (restored !== 0) console.error('Mailyard: `npm rebuild better-sqlite3` failed; run it before `npm test` or `npm run serve`.');
process.exit(status !== 0 ? status : restored);
