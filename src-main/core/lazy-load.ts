import { createRequire } from 'node:module';

/*
 * What most runs never use is loaded when first used, not with the emulator: importing
 * `mailyard/testing` (once in every test file a runner isolates) pays for none of it. Async code on a
 * path taken once in a while writes `await import('pkg')`; these two serve the rest.
 */

// Not named `require`: the CLI's bundle declares one of its own at the top of the module.
const requireHere = createRequire(import.meta.url);

/**
 * A CommonJS package for code that needs it synchronously, required on the first call. Resolved from
 * this module, as report-assets.ts resolves uPlot, so it works from the sources and both bundles.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}

/** An `import()` made on the first call and shared after it, for a path taken often (each message parsed). */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
