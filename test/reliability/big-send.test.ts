/**
 * One send's memory, storage and event-loop time do not grow with its recipients (a send may name
 * 1,000): 200 recipients of a 1 MB HTML body with open and click tracking. Measured: the time to
 * answer, the RSS peak over the start, the data directory's growth, and the longest wait of
 * /emulator/health while the send runs: at most what the same send to one recipient held (measured
 * just before: the body's parse and checks) plus half the send's own time, a bound set against the
 * same run (a send composed in one piece holds the loop about all of it). Each recipient's raw
 * message stays whole and its own.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { measureSend } from '../helpers/under-load';

const RECIPIENTS = Number(process.env.BIG_SEND_RECIPIENTS ?? 200);
const BODY_BYTES = 1024 * 1024;
/** Links in the body: a long newsletter's worth (each tracked link is a token of every copy). */
const LINKS = 60;
/** The longest hold of the event loop allowed beyond the one-recipient send's, as a share of the send's own time in the same run. */
const HOLD_SHARE = 0.5;

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startEmulator();
  await emu.control.setClock({ speed: 0 });
});
afterAll(async () => {
  await emu.cleanup();
});

it('sends 200 recipients of a 1 MB tracked body within a small multiple of the body, without blocking other requests', { timeout: 180_000 }, async () => {
  const text = '<p>Our spring catalogue has something for everyone, from garden tools to summer dresses. </p>';
  const section = (i: number) => `${text.repeat(Math.floor(BODY_BYTES / LINKS / text.length))}<a href="https://shop.example/item/${i}">item ${i}</a>`;
  const html = `<html><body>${Array.from({ length: LINKS }, (_, i) => section(i)).join('')}</body></html>`;
  const body = {
    from: { email: 'shop@example.com' },
    to: Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `r${i}@example.org` })),
    subject: 'Spring',
    content: [{ type: 'text/html', value: html }],
    settings: { open_tracking: { enable: true }, click_tracking: { enable: true } },
  };
  const m = await measureSend(emu, body, HOLD_SHARE);
  const res = m.res;
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  const diskGrowth = m.diskGrowthBytes;
  const figures = {
    recipients: RECIPIENTS,
    body_bytes: BODY_BYTES,
    seconds: Math.round(m.seconds * 10) / 10,
    rss_growth_mb: Math.round(m.rssGrowthMb * 10) / 10,
    disk_growth_mb: Math.round(diskGrowth / 1e5) / 10,
    health_worst_ms: Math.round(m.healthWorstMs),
    event_loop_max_ms: Math.round(m.eventLoopMaxMs),
    one_recipient_event_loop_max_ms: Math.round(m.reference.eventLoopMaxMs),
    hold_bound_ms: Math.round(m.holdBoundMs),
    health_checks: m.healthChecks,
  };
  console.log(JSON.stringify(figures));
  // Bounds: memory a small multiple of the body whatever the recipients; storage a fraction of one
  // copy per recipient (the whole send stored about once); the event loop never held for long: the
  // copies are made a piece at a time, so no hold comes near the whole send's time (see measureSend).
  expect(figures.rss_growth_mb).toBeLessThan(300);
  expect(diskGrowth).toBeLessThan(10 * BODY_BYTES);
  expect(m.healthWorstMs).toBeLessThanOrEqual(m.healthBoundMs);
  expect(m.eventLoopMaxMs).toBeLessThanOrEqual(m.holdBoundMs);

  // Each copy is whole and its own: its tracking links are its own, and its raw source parses to the body.
  const copies = (await emu.control.listMessages({ q: res.json.ref_id, limit: 500 })).data.messages;
  expect(copies).toHaveLength(RECIPIENTS);
  const seen = new Set<string>();
  for (const copy of [copies[0]!, copies[99]!, copies[199]!]) {
    const raw = Buffer.from((await emu.request('GET', `/emulator/messages/${copy.id}/raw`)).text, 'utf8');
    const parsed = await simpleParser(raw);
    const pixel = /\/t\/o\/([\w-]+)/.exec(String(parsed.html))![1]!;
    expect(seen.has(pixel)).toBe(false);
    seen.add(pixel);
    expect(String(parsed.html)).toContain('Our spring catalogue');
    expect(String(parsed.html).length).toBeGreaterThan(BODY_BYTES * 0.95);
    const open = await emu.request('GET', `/t/o/${pixel}`);
    expect(open.status).toBe(200);
    const detail = (await emu.control.getMessage(copy.id)).data;
    expect(detail.events.map((e) => e.event)).toContain('open');
    expect(detail.recipient.email).toBe(copy.recipient.email);
  }
});
