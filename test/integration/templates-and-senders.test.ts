import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

let emu: TestEmulator;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  emu = await startEmulator();
  await emu.registerEmailWebhook(receiver.url);
  await emu.control.setClock({ speed: 0 });
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
});

const WELCOME = {
  name: 'Welcome Email',
  subject: 'Welcome to {{company_name}}, {{first_name}}!',
  content: [
    { type: 'text/html', value: '<p>Hi {{first_name}}, welcome to {{ company_name }}.</p>' },
    { type: 'text/plain', value: 'Hi {{first_name}}, welcome to {{company_name}}.' },
  ],
};

/** The raw source of the copy of send `refId` that went to `email`. */
async function rawOf(refId: string, email: string): Promise<string> {
  const copy = (await emu.control.listMessages({ q: refId })).data.messages.find((m) => m.recipient.email === email)!;
  return (await emu.request('GET', `/emulator/messages/${copy.id}/raw`)).text;
}

describe('templates', () => {
  it('stores a template, lists, reads and deletes it', async () => {
    const created = await emu.request('POST', '/v1/email/template', { body: WELCOME });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      success: true,
      message: 'Template created successfully',
      template_id: expect.stringMatching(/^template_[0-9A-HJKMNP-TV-Z]{26}$/),
    });
    const id = created.json.template_id as string;
    const one = (await emu.service.getTemplate(id)).data;
    expect(one).toMatchObject({ template_id: id, name: 'Welcome Email', subject: WELCOME.subject, variables: ['company_name', 'first_name'] });
    expect((await emu.service.listTemplates()).data.map((t) => t.template_id)).toEqual([id]);
    // Another account sees none of them.
    const other = (await emu.control.createAccount({ name: 'Other' })).data;
    expect((await emu.request('GET', `/v1/email/template/${id}`, { apiKey: other.api_key })).status).toBe(404);
    expect((await emu.request('DELETE', `/v1/email/template/${id}`)).json).toEqual({ success: true, message: 'Template deleted successfully' });
    const gone = await emu.request('GET', `/v1/email/template/${id}`);
    expect([gone.status, gone.json.error]).toEqual([404, 'Template Not Found']);
  });

  it('refuses a template without a name or content, naming the field', async () => {
    const res = await emu.request('POST', '/v1/email/template', { body: { subject: 'x', content: [] } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.json.fields).sort()).toEqual(['content', 'name']);
  });

  it('sends by template_id, filling each recipient’s placeholders from substitutions (its own, then "*")', async () => {
    const { template_id } = (await emu.service.createTemplate(WELCOME as never)) as { template_id: string };
    const sent = await emu.request('POST', '/v1/email/send', {
      body: {
        from: { email: 'app@example.com' },
        to: [{ email: 'ann@example.org' }, { email: 'Bob@Example.org' }],
        template_id,
        substitutions: { '*': { company_name: 'Acme & Co' }, 'ann@example.org': { first_name: 'Ann' }, 'bob@example.org': { first_name: 'Bob' } },
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const ann = await rawOf(sent.json.ref_id, 'ann@example.org');
    expect(ann).toContain('Subject: Welcome to Acme & Co, Ann!');
    // In HTML a value is escaped; in text it is as given.
    expect(ann).toMatch(/Acme &#x26; Co|Acme &amp; Co/);
    expect(ann).toContain('Hi Ann, welcome to Acme & Co.');
    expect(await rawOf(sent.json.ref_id, 'Bob@Example.org')).toContain('Subject: Welcome to Acme & Co, Bob!');
    const logs = (await emu.service.getEmailLogs({ refId: sent.json.ref_id })).emailLogs;
    // Each recipient's log entry (and its events) carries the subject it was sent with.
    expect(logs.map((l) => l.subject).sort()).toEqual(['Welcome to Acme & Co, Ann!', 'Welcome to Acme & Co, Bob!']);
  });

  it('gives a recipient whose placeholder has no value a generation_failure instead of a delivery', async () => {
    const { template_id } = (await emu.service.createTemplate(WELCOME as never)) as { template_id: string };
    const sent = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.org' }, { email: 'carl@example.org' }],
      template_id,
      substitutions: { '*': { company_name: 'Acme' }, 'ann@example.org': { first_name: 'Ann' } },
    } as never);
    await emu.control.setClock({ advance_ms: 60_000 });
    await receiver.waitFor(2);
    await new Promise((r) => setTimeout(r, 100));
    const events = receiver.requests.map((r) => JSON.parse(r.body) as Record<string, any>);
    expect(events.map((e) => [e.event, e.recipient.email, e.ref_id]).sort()).toEqual([
      ['delivery', 'ann@example.org', sent.ref_id],
      ['generation_failure', 'carl@example.org', sent.ref_id],
    ]);
    const failure = events.find((e) => e.event === 'generation_failure')!;
    expect(failure).toMatchObject({ reason: 'no value for template variable {{first_name}}', error_code: 'missing_substitution' });
    const carl = (await emu.service.getEmailLogs({ email: 'carl@example.org' })).emailLogs[0]!;
    expect(carl).toMatchObject({ status: 'failed', failedReason: 'generation failure: no value for template variable {{first_name}}' });
  });

  it('leaves the placeholders of a plain send without substitutions as written', async () => {
    const sent = await emu.service.sendEmail({
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.org' }],
      subject: 'Use {{this}} literally',
      content: [{ type: 'text/plain', value: 'x' }],
    } as never);
    expect(await rawOf(sent.ref_id, 'ann@example.org')).toContain('Subject: Use {{this}} literally');
    await emu.control.setClock({ advance_ms: 60_000 });
    await receiver.waitFor(1);
    expect(JSON.parse(receiver.requests[0]!.body).event).toBe('delivery');
  });
});

describe("the bounds of filling placeholders (once per recipient, on the emulator's own thread)", () => {
  const send = (content: string, values: Record<string, string>) =>
    emu.request('POST', '/v1/email/send', {
      body: {
        from: { email: 'app@example.com' },
        to: [{ email: 'ann@example.org' }, { email: 'bob@example.org' }, { email: 'cy@example.org' }],
        subject: 'Hi',
        content: [{ type: 'text/html', value: content }],
        substitutions: { '*': values },
      },
    });

  it('refuses a send of 20 MB of placeholders with a 400 naming the limit, storing nothing', async () => {
    const res = await send('{{a}}'.repeat(4_000_000), { a: 'x' });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("content must hold at most 10,000 {{placeholders}}, the subject's counted in");
    expect((await emu.service.getEmailLogs()).emailLogs).toEqual([]);
    // 10,000 are filled as ever.
    const most = await send('{{a}} '.repeat(10_000), { a: 'x' });
    expect(most.status, most.text).toBe(200);
    expect(await rawOf(most.json.ref_id, 'cy@example.org')).toContain('x x x');
  });

  it('refuses a template holding more placeholders than a send fills', async () => {
    const res = await emu.request('POST', '/v1/email/template', { body: { ...WELCOME, content: [{ type: 'text/plain', value: '{{a}}'.repeat(10_001) }] } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("content must hold at most 10,000 {{placeholders}}, the subject's counted in");
  });

  it('refuses values that would make a copy longer than 25 MiB of text, naming the recipient', async () => {
    const res = await send('{{a}}'.repeat(10_000), { a: 'x'.repeat(3000) });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('substitutions make the copy for ann@example.org longer than 26,214,400 characters of subject and content');
    expect((await emu.service.getEmailLogs()).emailLogs).toEqual([]);
  });
});

describe('mailer_id and the sender', () => {
  const send = (body: Record<string, unknown>, apiKey?: string) =>
    emu.request('POST', '/v1/email/send', {
      body: { to: [{ email: 'ann@example.org' }], subject: 'Hi', content: [{ type: 'text/plain', value: 'Hi' }], ...body },
      ...(apiKey ? { apiKey } : {}),
    });

  it("takes a domain's mailer_id for its own domain's senders and answers 403 Unauthorized From Email for others", async () => {
    const added = await emu.request('POST', '/v1/domain/add', { body: { domain: 'mail.example.com' } });
    expect(added.status, added.text).toBe(200);
    const mailerId = added.json.mailer_id as string;
    const ok = await send({ from: { email: 'app@mail.example.com' }, mailer_id: mailerId });
    expect(ok.status, ok.text).toBe(200);
    expect((await emu.service.getEmailLogs({ refId: ok.json.ref_id })).emailLogs[0]!.fromAddress).toBe('app@mail.example.com');
    const other = await send({ from: { email: 'app@other.example.com' }, mailer_id: mailerId });
    expect([other.status, other.json.error]).toEqual([403, 'Unauthorized From Email']);
    // Another account cannot use this account's mailer_id as its own.
    const stranger = (await emu.control.createAccount({ name: 'Stranger' })).data;
    const borrowed = await send({ from: { email: 'app@mail.example.com' }, mailer_id: 'domain_NOTAULID' }, stranger.api_key);
    expect([borrowed.status, Object.keys(borrowed.json.fields)]).toEqual([400, ['mailer_id']]);
  });

  it("accepts a real service's domain mailer_id it does not know, and an empty one as none", async () => {
    expect((await send({ from: { email: 'app@example.com' }, mailer_id: 'domain_01JC3BBW8S9YGX2VNKG5MD7BTA' })).status).toBe(200);
    expect((await send({ from: { email: 'app@example.com' }, mailer_id: '' })).status).toBe(200);
  });

  it('with --strict-senders, takes only senders at a verified domain of the account', async () => {
    const strict = await startEmulator({ strictSenders: true });
    try {
      const body = {
        from: { email: 'app@mail.example.com' },
        to: [{ email: 'ann@example.org' }],
        subject: 'Hi',
        content: [{ type: 'text/plain', value: 'Hi' }],
      };
      const before = await strict.request('POST', '/v1/email/send', { body });
      expect([before.status, before.json.error]).toEqual([403, 'Unauthorized From Email']);
      expect(before.json.fields['from.email']).toMatch(/is not a verified domain of this account/);
      // An unknown mailer_id of the real service's form is no way around it.
      const realId = await strict.request('POST', '/v1/email/send', {
        body: { ...body, from: { email: 'x@example.com' }, mailer_id: 'domain_01JC3BBW8S9YGX2VNKG5MD7BTA' },
      });
      expect(realId.status).toBe(403);
      await strict.request('POST', '/v1/domain/add', { body: { domain: 'mail.example.com' } });
      const verified = await strict.request('PUT', '/v1/domain/verify/mail.example.com');
      expect(verified.status, verified.text).toBe(200);
      expect((await strict.request('POST', '/v1/email/send', { body })).status).toBe(200);
    } finally {
      await strict.cleanup();
    }
  });
});
