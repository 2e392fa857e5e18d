// `npm run bench [-- NAME...]`: runs test/bench/NAME.bench.ts (all of them without a name) through
// Vite's module runner, so benchmarks import the TypeScript sources exactly as the tests do.
import { readdirSync } from 'node:fs';
import { withModuleRunner } from './tools/module-runner.mjs';

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

const failed = await withModuleRunner(async (importTs) => {
  let failed = false;
  for (const name of wanted.length ? wanted : available) {
    const mod = await importTs(`/test/bench/${name}.bench.ts`);
    const ok = await mod.default();
    // A smoke run (MAILYARD_BENCH_SMOKE=1, tiny sizes) checks that each benchmark runs, not its targets.
    if (ok === false && process.env.MAILYARD_BENCH_SMOKE !== '1') failed = true;
  }
  return failed;
});
process.exit(failed ? 1 : 0);
