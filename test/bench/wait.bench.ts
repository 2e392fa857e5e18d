import { startMailyard, type Mailyard } from '../../src-main/testing/index';
import { percentile, sized } from './scale';

/**
 * The time of a `waitForMessage` (mailyard/testing) with 10 and with 10,000 stored messages: each
 * sample sends one message and waits for it by a filter object (the emulator filters and answers),
 * so the wait costs what the lookup costs whatever the store holds. Also the case: the first
 * wait for one copy of a send to 1,000 recipients (the documented maximum). Target: the median at
 * 10,000 at most 2x the median at 10. The stores are filled through the real send API.
 */
const SIZES = sized([10, 10_000], [10, 200]);
const SAMPLES = sized(100, 5);
const BATCH = 1000;

async function fill(yard: Mailyard, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += BATCH) {
    const n = Math.min(BATCH, count - sent);
    await yard.service.sendEmail({
      from: { email: 'app@shop.example' },
      to: Array.from({ length: n }, (_, i) => ({ email: `fill${sent + i}@example.org` })),
      subject: `Fill ${sent}`,
      content: [{ type: 'text/html', value: '<p>Filling the store</p>' }],
    });
  }
}

/** One sample: send one message, then time the wait for it by a filter object. */
async function sample(yard: Mailyard, i: number): Promise<number> {
  const { ref_id } = await yard.service.sendEmail({
    from: { email: 'app@shop.example' },
    to: [{ email: `sample${i}@example.org` }],
    subject: `Sample ${i}`,
    content: [{ type: 'text/html', value: `<p>Sample ${i}</p>` }],
  });
  const t = performance.now();
  const m = await yard.waitForMessage({ recipient: `sample${i}@example.org` });
  const elapsed = performance.now() - t;
  if (m.ref_id !== ref_id) throw new Error('the wait found another message');
  return elapsed;
}

/** One send to 1,000 recipients, then the first wait for one of its copies (the 5 s case). */
async function wideFirst(yard: Mailyard): Promise<number> {
  const wide = await yard.service.sendEmail({
    from: { email: 'app@shop.example' },
    to: Array.from({ length: BATCH }, (_, i) => ({ email: `wide${i}@example.org` })),
    subject: 'Wide',
    content: [{ type: 'text/html', value: '<p>Wide</p>' }],
  });
  const t = performance.now();
  await yard.waitForMessage({ ref_id: wide.ref_id, recipient: 'wide500@example.org' });
  return performance.now() - t;
}

export default async function run(): Promise<boolean> {
  // Both stores run at once and the samples alternate between them, so what else the machine does
  // weighs on both alike; the first rounds warm the code up and are dropped.
  const yards = await Promise.all(SIZES.map(() => startMailyard({ ui: false })));
  const times: number[][] = SIZES.map(() => []);
  const wide: number[] = [];
  try {
    for (const [k, size] of SIZES.entries()) {
      const started = performance.now();
      await fill(yards[k]!, size);
      const stored = (await yards[k]!.control.countMessages({})).data.count;
      console.log(`stored ${stored} messages in ${Math.round(performance.now() - started)} ms`);
    }
    for (let i = 0; i < SAMPLES + 10; i++) {
      for (const [k] of SIZES.entries()) {
        const elapsed = await sample(yards[k]!, i);
        if (i >= 10) times[k]!.push(elapsed);
      }
    }
    for (const yard of yards) wide.push(await wideFirst(yard));
  } finally {
    await Promise.all(yards.map((y) => y.stop()));
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const [small, large] = times.map((t) => ({ median: percentile(t, 50), p95: percentile(t, 95) }));
  const ratio = round(large!.median / small!.median);
  for (const [k, size] of SIZES.entries()) {
    const r = k === 0 ? small! : large!;
    console.log(`waitForMessage at ${size}: median ${round(r.median)} ms, p95 ${round(r.p95)} ms; first wait after a send to 1,000: ${round(wide[k]!)} ms`);
  }
  const figures = {
    bench: 'wait',
    samples: SAMPLES,
    sizes: SIZES,
    median_ms_small: round(small!.median),
    median_ms_large: round(large!.median),
    p95_ms_small: round(small!.p95),
    p95_ms_large: round(large!.p95),
    wide_first_ms_small: round(wide[0]!),
    wide_first_ms_large: round(wide[1]!),
    ratio,
    target: 2,
    pass: ratio <= 2,
  };
  console.log(`ratio ${ratio} (target <= 2)`);
  console.log(JSON.stringify(figures));
  return figures.pass;
}
