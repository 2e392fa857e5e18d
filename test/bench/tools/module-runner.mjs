// Runs TypeScript modules of this repository through Vite's module runner, so benchmark scripts
// import the sources exactly as the tests do (no build step).
import { fileURLToPath } from 'node:url';
import { createServer, createServerModuleRunner } from 'vite';

export const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Calls `use(importTs)` with a function importing a repository path (`/test/bench/x.ts`), then closes the runner. */
export async function withModuleRunner(use) {
  const server = await createServer({
    configFile: false,
    root,
    logLevel: 'warn',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
  try {
    return await use((path) => runner.import(path));
  } finally {
    await runner.close();
    await server.close();
  }
}
