/**
 * A body with many links: 200 recipients of a 1 MB HTML body holding 20,000 links, open and click
 * tracked, so each copy has 1,000 tracked links of its own. The send must not hold the event loop
 * (no hold, nor wait of /emulator/health, longer than the same send to one recipient's plus half
 * the send's own time, both measured in the same run: a send composed in one piece holds it about
 * all of it) and must not grow the data directory past 20x the body. Afterwards each copy's links
 * are its own: they redirect to the URL that was there and record the click on that copy alone.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { measureSend } from '../helpers/under-load';

const RECIPIENTS = Number(process.env.MANY_LINKS_RECIPIENTS ?? 200);
const LINKS = 20_000;
const BODY_BYTES = 1024 * 1024;
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

/** About 1 MB of HTML with LINKS links, each in a short sentence (the filler pads each to an equal share). */
function manyLinksHtml(): string {
  const share = Math.floor(BODY_BYTES / LINKS);
  const parts: string[] = [];
  for (let i = 0; i < LINKS; i++) {
    const link = `<a href="https://shop.example/p/${i}">P${i}</a>`;
    parts.push(link + ' more'.repeat(Math.max(0, Math.floor((share - link.length) / 5))));
  }
  return `<html><body>${parts.join('')}</body></html>`;
}

it('sends 200 copies of a 1 MB body with 20,000 links without holding the event loop or the disk', { timeout: 180_000 }, async () => {
  const html = manyLinksHtml();
  const htmlBytes = Buffer.byteLength(html);
  expect(htmlBytes).toBeGreaterThan(BODY_BYTES * 0.9);
  const body = {
    from: { email: 'shop@example.com' },
    to: Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `r${i}@example.org` })),
    subject: 'Catalogue',
    content: [{ type: 'text/html', value: html }],
    settings: { open_tracking: { enable: true }, click_tracking: { enable: true } },
  };
  const m = await measureSend(emu, body, HOLD_SHARE);
  const res = m.res;
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  const diskGrowth = m.diskGrowthBytes;
  const figures = {
    recipients: RECIPIENTS,
    links: LINKS,
    html_bytes: htmlBytes,
    seconds: Math.round(m.seconds * 10) / 10,
    disk_growth_mb: Math.round(diskGrowth / 1e5) / 10,
    disk_allowed_mb: Math.round((20 * htmlBytes) / 1e5) / 10,
    health_worst_ms: Math.round(m.healthWorstMs),
    event_loop_max_ms: Math.round(m.eventLoopMaxMs),
    one_recipient_event_loop_max_ms: Math.round(m.reference.eventLoopMaxMs),
    hold_bound_ms: Math.round(m.holdBoundMs),
    health_checks: m.healthChecks,
  };
  console.log(JSON.stringify(figures));
  expect(m.eventLoopMaxMs).toBeLessThanOrEqual(m.holdBoundMs);
  expect(m.healthWorstMs).toBeLessThanOrEqual(m.healthBoundMs);
  expect(diskGrowth).toBeLessThanOrEqual(20 * htmlBytes);

  // Each copy's links are its own: the first, the 1,000th (the last tracked) and the 1,001st (as written).
  const copies = (await emu.control.listMessages({ q: res.json.ref_id, limit: 500 })).data.messages;
  expect(copies).toHaveLength(RECIPIENTS);
  const seenClicks = new Set<string>();
  for (const copy of [copies[0]!, copies[1]!, copies[RECIPIENTS - 1]!]) {
    const raw = Buffer.from((await emu.request('GET', `/emulator/messages/${copy.id}/raw`)).text, 'utf8');
    const parsed = String((await simpleParser(raw)).html);
    expect(parsed.length).toBeGreaterThan(htmlBytes * 0.95);
    const clicks = [...parsed.matchAll(/href="([^"]*\/t\/c\/[\w-]+)"/g)].map((m) => m[1]!);
    expect(clicks).toHaveLength(1000);
    expect(parsed).toContain('<a href="https://shop.example/p/1000">P1000</a>');
    for (const [n, url] of [
      [0, clicks[0]!],
      [999, clicks[999]!],
    ] as const) {
      expect(seenClicks.has(url)).toBe(false);
      seenClicks.add(url);
      const path = new URL(url).pathname;
      const followed = await emu.request('GET', path);
      expect(followed.status).toBe(302);
      expect(followed.headers.location).toBe(`https://shop.example/p/${n}`);
    }
    const detail = (await emu.control.getMessage(copy.id)).data;
    const clicked = detail.events.filter((e) => e.event === 'click');
    expect(clicked).toHaveLength(2);
    expect(detail.recipient.email).toBe(copy.recipient.email);
  }
  // A copy nobody clicked in has no clicks.
  const untouched = (await emu.control.getMessage(copies[2]!.id)).data;
  expect(untouched.events.filter((e) => e.event === 'click')).toHaveLength(0);
});
