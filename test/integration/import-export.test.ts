import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src-main/cli/index';
import { splitMbox } from '../../src-shared/mbox';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { whenIndexed } from '../helpers/search';

let emu: TestEmulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emu?.cleanup();
  emu = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, stopSignal: () => new Promise(() => {}) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

const eml = (n: number, to: string, body: string) =>
  `From: Shop <shop@example.com>\r\nTo: ${to}\r\nSubject: ${n === 0 ? 'receipt' : `customer case ${n}`}\r\nMessage-ID: <m${n}@example.com>\r\nDate: Mon, 5 Jan 2026 09:0${n}:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;

describe('mailyard import and export', () => {
  it('imports two .eml files and a three-message mbox as five captured messages; export --query writes the three back as an mbox that keeps a >From body line', async () => {
    emu = await startEmulator();
    dir = await mkdtemp(join(tmpdir(), 'mailyard-import-'));
    await mkdir(join(dir, 'folder'));
    await writeFile(join(dir, 'one.eml'), eml(0, 'ann@example.org', 'Thank you for your order.'));
    await writeFile(join(dir, 'folder', 'two.eml'), eml(0, 'bob@example.org', 'Your parcel is on its way.'));
    // mboxrd: the second message's body line "From the warehouse" is quoted in the file.
    const mbox = [1, 2, 3]
      .map(
        (n) =>
          `From shop@example.com Mon Jan  5 09:0${n}:00 2026\n${eml(n, `case${n}@example.org`, n === 2 ? '>From the warehouse: delayed.' : `case ${n} text`).replace(/\r\n/g, '\n')}\n`,
      )
      .join('');
    await writeFile(join(dir, 'cases.mbox'), mbox);

    const imported = await cli('import', join(dir, 'one.eml'), join(dir, 'folder'), join(dir, 'cases.mbox'), '--url', emu.url);
    expect(imported).toMatchObject({ status: 0, err: '', out: 'Imported 5 messages (5 copies)' });
    const list = (await emu.control.listMessages({} as never)).data.messages;
    expect(list.map((m) => m.subject).sort()).toEqual(['customer case 1', 'customer case 2', 'customer case 3', 'receipt', 'receipt']);
    // Captured as over SMTP: the source, the search index and the events.
    expect(list.every((m) => m.source === 'smtp')).toBe(true);
    const parcel = await whenIndexed(() => emu!.control.listMessages({ q: 'parcel' } as never));
    expect(parcel.data.messages.map((m) => m.recipient.email)).toEqual(['bob@example.org']);
    const case2 = list.find((m) => m.subject === 'customer case 2')!;
    expect((await emu.request('GET', `/emulator/messages/${case2.id}/raw`)).text).toContain('\nFrom the warehouse: delayed.');
    await expect.poll(async () => (await emu!.control.getMessage(case2.id)).data.events.map((e) => e.event)).toContain('delivery');

    const out = join(dir, 'export.mbox');
    expect(await cli('export', out, '--url', emu.url, '--query', 'subject:"customer case"')).toMatchObject({ status: 0, out: `Exported 3 messages to ${out}` });
    const written = await readFile(out, 'latin1');
    expect(written).toContain('\n>From the warehouse: delayed.\n');
    expect(written.match(/^From shop@example\.com \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/gm)).toHaveLength(3);
    const back = splitMbox(Buffer.from(written, 'latin1')).map((m) => /Subject: (.*)/.exec(Buffer.from(m).toString())![1]);
    expect(back).toEqual(['customer case 1', 'customer case 2', 'customer case 3']);
  });

  it('names each message it could not capture by its file and number, and captures the rest; none is half stored', async () => {
    emu = await startEmulator();
    dir = await mkdtemp(join(tmpdir(), 'mailyard-import-'));
    const mbox = [
      `From x Mon Jan  5 09:00:00 2026\n${eml(1, 'ok@example.org', 'fine').replace(/\r\n/g, '\n')}\n`,
      'From x Mon Jan  5 09:00:00 2026\nFrom: shop@example.com\nSubject: nobody\n\nno recipient\n\n',
      'From x Mon Jan  5 09:00:00 2026\njust some words, no header\n\n',
    ].join('');
    await writeFile(join(dir, 'mixed.mbox'), mbox);
    await writeFile(join(dir, 'empty.eml'), '');
    const result = await cli('import', join(dir, 'mixed.mbox'), join(dir, 'empty.eml'), join(dir, 'missing.eml'), '--url', emu.url);
    expect(result.status).toBe(1);
    expect(result.out).toBe('Imported 1 message (1 copy); 4 not imported');
    expect(result.err.split('\n')).toEqual([
      `mailyard: not imported: ${join(dir, 'mixed.mbox')}: message 2: raw names no recipient in To or Cc`,
      `mailyard: not imported: ${join(dir, 'mixed.mbox')}: message 3: raw is not a message: it has no header fields`,
      `mailyard: not imported: ${join(dir, 'empty.eml')}: raw is empty: give the message, headers and body`,
      `mailyard: not imported: ${join(dir, 'missing.eml')}: no such file or folder`,
    ]);
    expect((await emu.control.listMessages({} as never)).data.messages.map((m) => m.subject)).toEqual(['customer case 1']);
  });

  it("imports into the account named and exports one account's messages (the Messages screen's header account)", async () => {
    emu = await startEmulator();
    dir = await mkdtemp(join(tmpdir(), 'mailyard-import-'));
    const qa = (await emu.control.createAccount({ name: 'QA' })).data;
    await writeFile(join(dir, 'qa.eml'), eml(1, 'qa@example.org', 'for QA'));
    await writeFile(join(dir, 'default.eml'), eml(2, 'dev@example.org', 'for the default account'));
    expect((await cli('import', join(dir, 'qa.eml'), '--url', emu.url, '--account', qa.id)).status).toBe(0);
    expect((await cli('import', join(dir, 'default.eml'), '--url', emu.url)).status).toBe(0);
    const out = join(dir, 'qa.mbox');
    expect(await cli('export', out, '--url', emu.url, '--account', qa.id)).toMatchObject({ status: 0, out: `Exported 1 message to ${out}` });
    expect(await readFile(out, 'latin1')).toMatch(/^To: qa@example\.org$/m);
    // The download the Messages screen links to, for the default account.
    const accounts = (await emu.control.listAccounts()).data;
    const res = await emu.request('GET', `/emulator/messages/export?account_id=${accounts.find((a) => a.is_default)!.id}`);
    expect(res.headers['content-disposition']).toBe('attachment; filename="messages.mbox"');
    expect(res.text.match(/^To: .*$/gm)).toEqual(['To: dev@example.org']);
  });
});
