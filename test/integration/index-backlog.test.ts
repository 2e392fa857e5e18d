/**
 * The search index is written after a copy's 200 or 250, and may lag far behind under load. What a
 * test waits on or asserts (a wait by ref_id, recipient, sender, subject, status or campaign; the
 * email logs; a copy's detail; the counts) reads the copies' own rows and holds the moment the 200 is
 * out; only a search by words reads the index, waits for it at most its bound, and says when its
 * answer may be incomplete. The indexer is held back here (the text of its batches is not derived),
 * so whatever waited for the index would find nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src-shared/http-client';
import { controlOperations } from '../../src-shared/operations';
import type { MessageWaitFilter } from '../../src-shared/schemas/messages';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

let emu: TestEmulator;
let release: () => void;

/** Holds the search indexer back: no batch is indexed until `release`. */
function holdIndexer(): () => void {
  const thread = emu.handle.services.mailThread;
  const derive = thread.derive.bind(thread);
  let open!: () => void;
  const held = new Promise<void>((resolve) => (open = resolve));
  thread.derive = async (job) => {
    await held;
    return derive(job);
  };
  return () => {
    thread.derive = derive;
    open();
  };
}

beforeEach(async () => {
  emu = await startEmulator();
  release = holdIndexer();
});
afterEach(async () => {
  release();
  await emu.cleanup();
});

/** One check of a wait (wait_ms=0): what the emulator finds at its first look. */
async function firstLook(filter: MessageWaitFilter) {
  const http = new HttpClient({ baseUrl: emu.url });
  return (await http.call(controlOperations.waitForMessages, { query: { ...filter, wait_ms: 0, limit: 10 } })).data;
}

describe('a search index that lags behind', () => {
  it('does not hold a wait: after 10 sends of 1,000 recipients, one more copy is found by its recipient at the first look', { timeout: 120_000 }, async () => {
    for (let s = 0; s < 10; s++) {
      await emu.service.sendEmail({
        from: { email: 'app@shop.example' },
        to: Array.from({ length: 1000 }, (_, i) => ({ email: `fill${s}-${i}@example.org` })),
        subject: `Fill ${s}`,
        content: [{ type: 'text/html', value: '<p>Filling the store</p>' }],
      });
    }
    const { ref_id } = await emu.service.sendEmail({
      from: { email: 'Late@Shop.example' },
      to: [{ email: 'Late.One@Example.org' }],
      subject: 'Your late receipt',
      campaign_id: 'spring-late',
      content: [{ type: 'text/html', value: '<p>At last</p>' }],
    });

    const byRecipient = await firstLook({ recipient: 'late.one@example.org' });
    expect(byRecipient).toMatchObject({ timed_out: false, waited_ms: 0 });
    expect(byRecipient.messages.map((m) => [m.ref_id, m.recipient.email])).toEqual([[ref_id, 'Late.One@Example.org']]);
    const copy = byRecipient.messages[0]!;
    // Every other field of a wait, alone or together, finds it at the first look too.
    for (const filter of [
      { ref_id },
      { ref_id, recipient: 'LATE.ONE@example.org' },
      { from: 'late@shop.example' },
      { subject: 'LATE RECEIPT' },
      { status: copy.status, recipient: 'late.one@example.org' },
      { campaign_id: 'spring-late' },
      { recipient: 'late.one@example.org', source: 'api' as const, account_id: copy.account_id },
    ]) {
      expect(
        (await firstLook(filter)).messages.map((m) => m.id),
        JSON.stringify(filter),
      ).toEqual([copy.id]);
    }
    // The email logs, the copy's detail and the counts read the copies too.
    const logs = (await emu.service.getEmailLogs({ email: 'late.one@example.org' })).emailLogs;
    expect(logs.map((e) => e.refId)).toEqual([ref_id]);
    expect((await emu.control.getMessage(copy.id)).data.subject).toBe('Your late receipt');
    expect((await emu.control.countMessages({ campaign_id: 'spring-late' })).data).toEqual({ count: 1 });
    expect((await emu.control.countMessages()).data).toEqual({ count: 10_001 });
    // Meanwhile the index holds none of them: a search by words says so.
    const searched = (await emu.control.listMessages({ q: 'late.one@example.org' })).data;
    expect(searched.messages).toEqual([]);
    expect(searched.index_pending).toBe(10_001);
  });

  it('answers a search by words with what is indexed, saying how many copies it may miss; by an id at once', { timeout: 60_000 }, async () => {
    const { ref_id } = await emu.service.sendEmail({
      from: { email: 'app@shop.example' },
      to: [{ email: 'ann@example.org' }],
      subject: 'Quokka sighting',
      content: [{ type: 'text/plain', value: 'A quokka was seen.' }],
    });
    const page = (await emu.control.listMessages({ q: 'quokka' })).data;
    expect(page.messages).toEqual([]);
    expect(page.index_pending).toBe(1);
    expect(page.warnings).toEqual([expect.stringContaining('search index is catching up: 1 stored message is not searchable')]);
    expect((await emu.control.countMessages({ q: 'quokka' })).data).toEqual({ count: 0, index_pending: 1 });
    // A send's ref_id is looked up in the copies' own column: found, complete.
    const byId = (await emu.control.listMessages({ q: ref_id })).data;
    expect(byId.messages.map((m) => m.ref_id)).toEqual([ref_id]);
    expect(byId.index_pending).toBeUndefined();

    release();
    // Once the index has caught up, the same search finds it and says nothing is missing.
    let found = await emu.control.listMessages({ q: 'quokka' });
    while (found.data.index_pending !== undefined) found = await emu.control.listMessages({ q: 'quokka' });
    expect(found.data.messages.map((m) => m.subject)).toEqual(['Quokka sighting']);
    expect(found.data.warnings).toEqual([]);
    expect((await emu.control.countMessages({ q: 'quokka' })).data).toEqual({ count: 1 });
  });
});
