// `npm run bench:guard`: the SMTP benchmark, a short send benchmark, the wait benchmark and the start
// benchmark (about three minutes and a half), checked against floors well below their targets (smtp:
// 0.22x a bare smtp-server in both profiles, send: 0.1x a bare fastify route, wait: no wait timed out
// while the search index catches up with 10,000 copies, and a wait at 10,000 at most 3x one at 10;
// start: importing mailyard/testing from the build at most 2x importing its core dependencies, the
// first startMailyard() at most 300 ms, both in CPU time; each benchmark prints its figures and ends
// with its JSON line). CI runs it after the tests (on `npm test`'s build): a change that makes intake
// two or three times slower, makes a wait inherit the search index's lag, or loads at import what most
// tests never use fails there; ordinary noise does not.
// Exit code 1 when a floor is missed twice in a row.
import { withModuleRunner } from './tools/module-runner.mjs';

process.env.MAILYARD_BENCH_GUARD = '1';
const missed = await withModuleRunner(async (importTs) => {
  const missed = [];
  for (const name of ['smtp', 'send', 'wait', 'start']) {
    const mod = await importTs(`/test/bench/${name}.bench.ts`);
    if ((await mod.default()) !== false) continue;
    // One run below its floor may be this machine's noise (send's ratio ranged 0.11-0.20 over full runs
    // of the same code): a second run decides. A change that costs 2x misses both.
    console.log(`bench:guard: ${name} below its floor once: running it again`);
    if ((await mod.default()) === false) missed.push(name);
  }
  return missed;
});
console.log(missed.length ? `bench:guard: below the floor: ${missed.join(', ')}` : 'bench:guard: smtp, send, wait and start above their floors');
process.exit(missed.length ? 1 : 0);
