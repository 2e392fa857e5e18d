import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

/**
 * One build for both runtimes. `out/main/cli.js` is the headless `mailyard serve` (plain Node, never
 * imports electron); `out/main/desktop.js` is the Electron main process. Both wrap the same core.
 * The npm package's library entries (`mailyard`, `mailyard/testing`, ESM and CommonJS) are built after
 * this by build/library.mjs (`npm run build`); their types by src-main/testing/build-types.mjs.
 */
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          cli: resolve(import.meta.dirname, 'src-main/cli/index.ts'),
          desktop: resolve(import.meta.dirname, 'src-main/desktop/index.ts'),
          // The mail thread (composing, search indexing): src-main/core/services/mail-thread/mail-thread.ts finds it beside the bundle.
          'mail-worker': resolve(import.meta.dirname, 'src-main/core/services/mail-thread/worker.ts'),
          // Run by `npm start` under plain Node before Electron: better-sqlite3 built for Electron.
          'prepare-native-sqlite': resolve(import.meta.dirname, 'src-main/desktop/prepare-native-sqlite.ts'),
        },
        // No JSDoc in the bundles: the bundled @fastify/static's JSDoc holds `import("./types")` that is not code.
        output: { comments: { jsdoc: false, legal: true, annotation: true } },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve(import.meta.dirname, 'src-main/desktop/preload.ts') },
        // Sandboxed preload scripts must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      // electron-vite leaves the bundle unminified; minified, the page's script is about a third of the
      // size and a screen loads in about half the time (the web UI served by `mailyard serve` too).
      minify: true,
      rollupOptions: { input: resolve(import.meta.dirname, 'src-renderer/index.html') },
    },
  },
});
