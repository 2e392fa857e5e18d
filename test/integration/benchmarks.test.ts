import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every benchmark's final JSON line from a smoke run (tiny sizes, targets not checked). */
function smokeRun(): Promise<{ code: number | null; figures: Array<Record<string, unknown>>; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--expose-gc', 'test/bench/run.mjs'], {
      cwd: ROOT,
      env: { ...process.env, MAILYARD_BENCH_SMOKE: '1' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.on('close', (code) => {
      const figures = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      done({ code, figures, output });
    });
  });
}

describe('npm run bench', () => {
  it('runs every benchmark to its JSON line (a smoke run at tiny sizes: the figures are not checked)', { timeout: 240_000 }, async () => {
    const { code, figures, output } = await smokeRun();
    expect(code, output).toBe(0);
    const byName = Object.fromEntries(figures.map((f) => [f.bench, f]));
    expect(Object.keys(byName).sort()).toEqual(['dispatch', 'logs', 'mailpit', 'prune', 'search', 'send', 'smtp', 'start', 'ui', 'wait']);
    const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
    expect(finite(byName.dispatch!.ratio) && finite(byName.dispatch!.dispatcher_per_s), JSON.stringify(byName.dispatch)).toBe(true);
    expect(finite(byName.send!.send_email_per_s) && finite(byName.send!.bare_fastify_per_s), JSON.stringify(byName.send)).toBe(true);
    const smtp = byName.smtp as { small: Record<string, number>; attachment: Record<string, number> };
    expect(finite(smtp.small.mailyard_per_s) && finite(smtp.attachment.maildev_per_s), JSON.stringify(smtp)).toBe(true);
    expect(finite(byName.logs!.ratio_all), JSON.stringify(byName.logs)).toBe(true);
    expect(finite(byName.ui!.first_row_ratio), JSON.stringify(byName.ui)).toBe(true);
    expect(finite(byName.search!.ratio), JSON.stringify(byName.search)).toBe(true);
    expect(finite(byName.mailpit!.ratio_list) && finite(byName.mailpit!.ratio_search), JSON.stringify(byName.mailpit)).toBe(true);
    expect(finite(byName.wait!.ratio) && finite(byName.wait!.median_ms_large), JSON.stringify(byName.wait)).toBe(true);
    expect(finite(byName.start!.ratio_cpu) && finite(byName.start!.start_ms), JSON.stringify(byName.start)).toBe(true);
    expect(finite(byName.prune!.ratio) && finite(byName.prune!.baseline_ms), JSON.stringify(byName.prune)).toBe(true);
  });
});
