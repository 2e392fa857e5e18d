import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, UsageError } from '../../src-main/cli/args';
import { createEmulator } from '../../src-main/core';
import { EmulatorConfigSchema } from '../../src-main/core/config';
import { intakeTagging } from '../../src-main/core/smtp/mail-intake';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * Mailpit's tagging options: tag rules by search (`--tag`, `--tags-config`), the SMTP login's user
 * name, title case, and turning X-Tags and plus-address tags off (`--tags-disable`). A rule judges each copy once, as it
 * arrives, and the sender's answer comes after its tags.
 */
let emu: TestEmulator;
let dir: string;

const YAML = `filters:
  - match: 'subject:"weekly digest"'
    tags: Digest, Newsletters
`;

type Listed = { messages: Array<{ id: string; subject: string; recipient: string; tags: string[] }> };

/** The copies as `/emulator/messages` lists them now: it reads the copies' rows, never waiting for the search index. */
async function listed(): Promise<Map<string, string[]>> {
  const page = (await emu.control.listMessages({ limit: 50 })).data as unknown as Listed;
  return new Map(page.messages.map((m) => [m.subject, m.tags]));
}

const smtp = (auth?: { user: string; pass: string }) =>
  nodemailer.createTransport({ host: '127.0.0.1', port: emu.handle.ports.smtp!, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailyard-tag-rules-'));
  await writeFile(join(dir, 'tags.yml'), YAML);
  emu = await startEmulator({
    tagRules: ['Invoice=subject:invoice', 'Shop,Orders="from:shop@example.com subject:order" Bounces=to:bounce'],
    tagsConfig: join(dir, 'tags.yml'),
    tagsUsername: true,
    tagsTitleCase: true,
    tagsPlusAddresses: true,
    tagsDisable: 'x-tags',
  });
});

afterAll(async () => {
  await emu?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('tag rules (--tag, --tags-config)', () => {
  it('tag the copies a rule finds before the SMTP answer, and no others', async () => {
    const mail = smtp();
    await mail.sendMail({ from: 'shop@example.com', to: 'cy@example.com', subject: 'Order shipped', text: 'x' });
    await mail.sendMail({ from: 'shop@example.com', to: 'dee@example.com', subject: 'Spring sale', text: 'x' });
    await mail.sendMail({ from: 'news@example.com', to: 'eve@example.com', subject: 'Your weekly digest', text: 'x' });
    await mail.sendMail({ from: 'news@example.com', to: 'fay@example.com', subject: 'A weekly news digest', text: 'x' });
    await mail.sendMail({ from: 'billing@example.com', to: 'ann@example.com, bob@example.com', subject: 'Your invoice 42', text: 'x' });
    // Read at once after each 250, from the copies' rows: the tags are there already.
    const tags = await listed();
    expect(Object.fromEntries(tags)).toEqual({
      'Your invoice 42': ['Invoice'],
      'Order shipped': ['Orders', 'Shop'],
      'Spring sale': [],
      'Your weekly digest': ['Digest', 'Newsletters'],
      'A weekly news digest': [],
    });
    // Both copies of the invoice, as the search and Mailpit's API find them.
    const found = (await emu.control.listMessages({ q: 'tag:invoice' })).data as unknown as { messages: Array<{ recipient: { email: string } }> };
    expect(found.messages.map((m) => m.recipient.email).sort()).toEqual(['ann@example.com', 'bob@example.com']);
    const mailpit = (await (await fetch(`${emu.url}/api/v1/search?query=tag:invoice`)).json()) as { messages_count: number };
    expect(mailpit.messages_count).toBe(2);
  });

  it('judge each copy once, as it arrives: a tag taken off stays off when later mail matches', async () => {
    await smtp().sendMail({ from: 'billing@example.com', to: 'gil@example.com', subject: 'First invoice', text: 'x' });
    const first = (await emu.control.waitForMessages({ recipient: 'gil@example.com' })).data.messages[0]!;
    expect(first.tags).toEqual(['Invoice']);
    await emu.control.setMessageTags(first.id, { tags: [] });
    await smtp().sendMail({ from: 'billing@example.com', to: 'hal@example.com', subject: 'Second invoice', text: 'x' });
    const tags = await listed();
    expect([tags.get('First invoice'), tags.get('Second invoice')]).toEqual([[], ['Invoice']]);
  });

  it('tag /v1 sends too, before their answer; a wait answers a copy with its rule tags', async () => {
    const send = (to: string) =>
      emu.service.sendEmail({
        from: { email: 'app@example.com' },
        to: [{ email: to }],
        subject: `API invoice to ${to}`,
        content: [{ type: 'text/plain', value: 'x' }],
        // Not read: this emulator has --tags-disable x-tags.
        headers: { 'X-Tags': 'alpha' },
      } as never);
    // The first send of a run is slow enough (composing starts up) for the index to catch up anyway.
    await send('bounce-zero@example.com');
    for (const n of ['one', 'two', 'three']) {
      await send(`bounce-${n}@example.com`);
      // Read at once, from the copy's row: its rule tags came before the answer.
      expect((await listed()).get(`API invoice to bounce-${n}@example.com`)).toEqual(['Bounces', 'Invoice']);
    }
    // A send of 600 recipients, each copy's To line naming them all: the index takes them in over seconds, well after the
    // store has them; the answer still comes after every copy is tagged.
    const many = Array.from({ length: 600 }, (_, i) => ({ email: `bounce-many-${i}@example.com` }));
    await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: many,
      subject: 'API invoice to many',
      content: [{ type: 'text/plain', value: 'x' }],
    } as never);
    // The newest 500, read at once from the copies' rows: the last batches the index took in.
    const copies = (await emu.control.listMessages({ limit: 500 })).data.messages as unknown as Listed['messages'];
    const ofMany = copies.filter((m) => m.subject === 'API invoice to many');
    expect(ofMany).toHaveLength(500);
    expect(ofMany.filter((m) => m.tags.join() !== 'Bounces,Invoice')).toEqual([]);
    const waiting = emu.control.waitForMessages({ recipient: 'bounce-four@example.com', wait_ms: 10_000 });
    await send('bounce-four@example.com');
    expect((await waiting).data.messages[0]!.tags).toEqual(['Bounces', 'Invoice']);
  });

  it("tag with the SMTP login's user name (--tags-username), plus-address tags title-cased (--tags-title-case), X-Tags unread (--tags-disable x-tags)", async () => {
    await smtp({ user: 'ci-bot', pass: emu.apiKey }).sendMail({
      from: 'app@example.com',
      to: 'ivy+spring+big-deal+Later@example.com',
      subject: 'Logged in',
      text: 'x',
      headers: { 'X-Tags': 'alpha' },
    });
    expect((await listed()).get('Logged in')).toEqual(['Big-Deal', 'ci-bot', 'Later', 'Spring']);
    // Mailpit's send puts its Tags in X-Tags, so they are not read either, as in Mailpit.
    const sent = await fetch(`${emu.url}/api/v1/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ From: { Email: 'app@example.com' }, To: [{ Email: 'jo@example.com' }], Subject: 'Anonymous', Tags: ['beta'] }),
    });
    expect(sent.status).toBe(200);
    expect((await listed()).get('Anonymous')).toEqual([]);
  });
});

describe('a bad tagging option refuses to start, naming it', () => {
  const refusal = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    try {
      parseServeArgs(argv, env);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error(`${argv.join(' ')} was accepted`);
  };

  it('a rule without "=", without a tag or a search, with a search the language does not know, or on a status', () => {
    expect(refusal(['--tag', 'Invoice=subject:invoice Urgent'])).toContain('invalid value for --tag: tag rule "Urgent" has no "="');
    expect(refusal(['--tag', '=subject:invoice'])).toContain('tag rule "=subject:invoice" names no tag');
    expect(refusal(['--tag', 'Invoice='])).toContain('tag rule "Invoice=" has no search');
    expect(refusal(['--tag', 'Inline=has:inline'])).toContain('tag rule "Inline=has:inline": has:inline is not known');
    expect(refusal(['--tag', 'Gone=is:bounced'])).toContain('is:bounced changes after a message arrives');
    expect(refusal([], { MAILYARD_TAG: 'Ok=subject:ok Bad' })).toContain('invalid value for MAILYARD_TAG: tag rule "Bad" has no "="');
    expect(parseServeArgs([], { MAILYARD_TAG: 'A=subject:a "B,C=from:b subject:c"' }).config.tagRules).toEqual(['A=subject:a "B,C=from:b subject:c"']);
    // --tags-disable plus-addresses wins over --tags-plus-addresses.
    const { config } = parseServeArgs(['--tags-plus-addresses', '--tags-disable', 'Plus-Addresses'], {});
    expect(intakeTagging(EmulatorConfigSchema.parse(config))).toMatchObject({ xTags: true, plusAddresses: false });
  });

  it('a tags file that cannot be read, is not YAML, has no filters or a bad entry; a --tags-disable value Mailpit does not have', async () => {
    expect(refusal(['--tags-config', join(dir, 'missing.yml')])).toContain(`invalid value for --tags-config: cannot read ${join(dir, 'missing.yml')}: ENOENT`);
    await writeFile(join(dir, 'bad.yml'), 'filters: [unclosed');
    expect(refusal(['--tags-config', join(dir, 'bad.yml')])).toContain('bad.yml is not YAML');
    await writeFile(join(dir, 'empty.yml'), 'tags: x\n');
    expect(refusal(['--tags-config', join(dir, 'empty.yml')])).toContain('has no "filters:" list');
    await writeFile(join(dir, 'entry.yml'), "filters:\n  - match: 'subject:a'\n    tags: A\n  - match: 'smaller:big'\n    tags: B\n");
    expect(refusal(['--tags-config', join(dir, 'entry.yml')])).toContain('entry.yml, filter 2: B=smaller:big": smaller:big is not a size');
    expect(refusal(['--tags-disable', 'x-tags,labels'])).toContain('invalid value for --tags-disable: "labels" is not one of x-tags, plus-addresses');
    await expect(createEmulator({ memory: true, httpPort: 0, smtpPort: 0, logLevel: 'silent', tagRules: ['Invoice'] })).rejects.toMatchObject({
      issues: [{ path: ['tagRules'], message: expect.stringContaining('tag rule "Invoice" has no "="') }],
    });
  });
});
