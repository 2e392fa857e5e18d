// `npm run bench [-- NAME...]`: runs test/bench/NAME.bench.ts (all of them without a name) through
// Vite's module runner, so benchmarks import the TypeScript sources exactly as the tests do.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer, createServerModuleRunner } from 'vite';

const root = fileURLToPath(new URL('../..', import.meta.url));
const available = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''));
const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!available.includes(name)) {
    console.error(`bench: no benchmark "${name}" (available: ${available.join(', ')})`);
    process.exit(2);
  }
}

const server = await createServer({
  configFile: false,
  root,
  logLevel: 'warn',
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
let failed = false;
try {
  for (const name of wanted.length ? wanted : available) {
    const mod = await runner.import(`/test/bench/${name}.bench.ts`);
    const ok = await mod.default();
    // A smoke run (MAILYARD_BENCH_SMOKE=1, tiny sizes) checks that each benchmark runs, not its targets.
    if (ok === false && process.env.MAILYARD_BENCH_SMOKE !== '1') failed = true;
  }
} finally {
  await runner.close();
  await server.close();
}
process.exit(failed ? 1 : 0);
