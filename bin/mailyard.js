#!/usr/bin/env node
// The `mailyard` command: runs the built CLI (out/main/cli.js). The npm package carries it; in a
// clone of the repository `npm run build` (or `npm run serve`) makes it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../out/main/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error(
    'mailyard: out/main/cli.js is missing. In a clone of the repository, run `npm run build` (or `npm run serve`) first; ' +
      'an installed package carries it (reinstall the package).',
  );
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
