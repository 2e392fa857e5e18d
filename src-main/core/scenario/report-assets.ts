import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** uPlot's minified script and stylesheet, to inline into the HTML report (it must load nothing from the network). */
export interface UplotAssets {
  uplotJs: string;
  uplotCss: string;
}

/**
 * Reads uPlot's files from its installed package (a runtime dependency: present in a checkout, in the
 * built CLI's node_modules and in an installed `mailyard` package). Resolved from this module, as the
 * checkpointer resolves better-sqlite3, so it works from the sources, the ESM and the CommonJS bundles.
 */
export function loadUplotAssets(from: string = import.meta.url): UplotAssets {
  const require = createRequire(from);
  return {
    uplotJs: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    uplotCss: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
}
