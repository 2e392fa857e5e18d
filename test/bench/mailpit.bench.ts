import nodemailer from 'nodemailer';
import { type Mailyard, startMailyard } from '../../src-main/testing/index';
import { percentile, sized } from './scale';

/**
 * Mailpit's list and search against Mailyard's own, over HTTP, on one store of 1,500 small messages
 * (half through the SMTP sink, half through the send API, a few with an attachment): the first page
 * of `/api/v1/messages?limit=50` against `/emulator/messages?limit=50`, and `/api/v1/search` against
 * `/emulator/messages?q=` with the same words. The requests alternate (each pair's order swapped every
 * other sample), so what else the machine does weighs on both alike; the first rounds warm up and are
 * dropped. Target: each Mailpit median at most 3x its native one: test helpers poll this list every
 * few hundred milliseconds, so it must cost about what the native list costs.
 */
const MESSAGES = sized(1_500, 60);
const SAMPLES = sized(100, 5);
const WARM_UP = sized(10, 1);
const TARGET = 3;

async function fill(yard: Mailyard, count: number): Promise<void> {
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: yard.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
  const bySmtp = Math.floor(count / 2);
  const sends: Array<Promise<unknown>> = [];
  for (let i = 0; i < bySmtp; i++) {
    sends.push(
      smtp.sendMail({
        from: 'Shop <shop@example.com>',
        to: `Customer ${i} <customer${i}@example.org>`,
        cc: i % 5 === 0 ? 'audit@example.org' : undefined,
        // The Cc is in the headers only: one copy per message, so the store holds MESSAGES copies.
        envelope: { from: 'shop@example.com', to: `customer${i}@example.org` },
        subject: `Your receipt #${i}`,
        text: `Thank you for your order ${i}. Your parcel is on its way; track it from your account page.`,
        html: `<p>Thank you for your order <b>${i}</b>.</p><p>Your parcel is on its way.</p>`,
        attachments: i % 10 === 0 ? [{ filename: `receipt-${i}.txt`, content: `receipt ${i}\n`.repeat(50) }] : [],
      }),
    );
    if (sends.length >= 50) await Promise.all(sends.splice(0));
  }
  await Promise.all(sends);
  smtp.close();
  for (let sent = 0; sent < count - bySmtp; sent += 100) {
    const n = Math.min(100, count - bySmtp - sent);
    await yard.service.sendEmail({
      from: { email: 'shop@example.com', name: 'Shop' },
      to: Array.from({ length: n }, (_, i) => ({ email: `api${sent + i}@example.org` })),
      subject: `Your receipt (API) ${sent}`,
      content: [
        { type: 'text/plain', value: 'Thank you for your order. Your parcel is on its way.' },
        { type: 'text/html', value: '<p>Thank you for your order.</p><p>Your parcel is on its way.</p>' },
      ],
    });
  }
}

/** Waits until the search index holds every stored copy (a search by words answers what is pending). */
async function indexed(yard: Mailyard): Promise<void> {
  for (;;) {
    const pending = (await yard.control.countMessages({ q: 'parcel' })).data.index_pending ?? 0;
    if (pending === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function timedGet(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t;
}

export default async function run(): Promise<boolean> {
  const yard = await startMailyard({ ui: false });
  const pairs = {
    list: { mailpit: `${yard.url}/api/v1/messages?limit=50`, native: `${yard.url}/emulator/messages?limit=50` },
    search: { mailpit: `${yard.url}/api/v1/search?query=parcel&limit=50`, native: `${yard.url}/emulator/messages?q=parcel&limit=50` },
  };
  const times = Object.fromEntries(Object.keys(pairs).map((k) => [k, { mailpit: [] as number[], native: [] as number[] }]));
  try {
    const started = performance.now();
    await fill(yard, MESSAGES);
    await indexed(yard);
    const stored = (await yard.control.countMessages({})).data.count;
    console.log(`stored and indexed ${stored} messages in ${Math.round(performance.now() - started)} ms`);
    for (let i = 0; i < WARM_UP + SAMPLES; i++) {
      for (const [name, pair] of Object.entries(pairs)) {
        const order = i % 2 === 0 ? (['mailpit', 'native'] as const) : (['native', 'mailpit'] as const);
        for (const side of order) {
          const ms = await timedGet(pair[side]);
          if (i >= WARM_UP) times[name]![side].push(ms);
        }
      }
    }
  } finally {
    await yard.stop();
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const medians = Object.fromEntries(
    Object.entries(times).map(([name, t]) => [name, { mailpit: round(percentile(t.mailpit, 50)), native: round(percentile(t.native, 50)) }]),
  );
  const ratios = Object.fromEntries(Object.entries(medians).map(([name, m]) => [name, round(m.mailpit / m.native)]));
  for (const [name, m] of Object.entries(medians)) {
    console.log(`${name.padEnd(7)} Mailpit median ${m.mailpit} ms, native ${m.native} ms: ${ratios[name]}x (target <= ${TARGET})`);
  }
  const figures = {
    bench: 'mailpit',
    messages: MESSAGES,
    samples: SAMPLES,
    median_ms: medians,
    ratio_list: ratios.list,
    ratio_search: ratios.search,
    target: TARGET,
    pass: Object.values(ratios).every((r) => r! <= TARGET),
  };
  console.log(JSON.stringify(figures));
  return figures.pass;
}
