#!/usr/bin/env node
// The `mailyard` command: runs the built CLI bundle (see README: `npm run build` first).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../out/main/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error('mailyard: not built yet. Run `npm run build` (or `npm run serve`) in the project folder first.');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
