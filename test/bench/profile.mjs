// `npm run bench:profile -- smtp|smtp-attachment|send [messages]`: a CPU profile of one intake path under its
// benchmark's load, written to test-results/profiles/, with the functions taking the most self time.
import { join } from 'node:path';
import { root, withModuleRunner } from './tools/module-runner.mjs';

const [kind, count] = process.argv.slice(2);
if (kind !== 'smtp' && kind !== 'smtp-attachment' && kind !== 'send') {
  console.error('usage: npm run bench:profile -- smtp|smtp-attachment|send [messages]');
  process.exit(2);
}
await withModuleRunner(async (importTs) => {
  const mod = await importTs('/test/bench/tools/profile-ingest.ts');
  await mod.default(kind, join(root, 'test-results/profiles'), root, count ? Number(count) : undefined);
});
