import { MailpitClient } from 'mailpit-api';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, startMailyard } from '../../src-main/testing/index';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process';

/**
 * Mailpit's chaos as QA uses it, through the real `mailpit-api` client against the built
 * `mailyard serve --enable-chaos`, and real SMTP (nodemailer): a trigger at 100 refuses its command
 * with its code, setting triggers replaces them all, and a refused recipient is captured nowhere.
 */
let serve: ServeProcess;
let mailpit: MailpitClient;
let smtpPort: number;
const JSON_TYPE = { 'content-type': 'application/json' };

const send = (to = 'ann@example.com', auth?: { user: string; pass: string }) =>
  nodemailer
    .createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) })
    .sendMail({ from: 'app@example.com', to, subject: 'Chaos', text: 'hello' });

/** The SMTP refusal a send got: its code and the command refused. */
async function refusal(sending: Promise<unknown>): Promise<{ code: number; command: string }> {
  const err = (await sending.then(
    () => null,
    (e: unknown) => e,
  )) as { responseCode: number; command: string } | null;
  expect(err, 'the send was accepted').not.toBeNull();
  return { code: err!.responseCode, command: err!.command };
}

beforeAll(async () => {
  serve = await startServeProcess(['--memory', '--http-port', '0', '--enable-chaos']);
  smtpPort = Number(/^SMTP:\s+smtp:\/\/127\.0\.0\.1:(\d+) /m.exec(serve.stdout())![1]);
  mailpit = new MailpitClient(serve.url);
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
});

describe('chaos (serve --enable-chaos)', () => {
  it('says it is on, and its triggers start off at their default codes', async () => {
    expect((await mailpit.getConfiguration()).ChaosEnabled).toBe(true);
    expect(await mailpit.getChaosTriggers()).toEqual({
      Sender: { ErrorCode: 451, Probability: 0 },
      Recipient: { ErrorCode: 451, Probability: 0 },
      Authentication: { ErrorCode: 535, Probability: 0 },
    });
  });

  it('a Recipient trigger at 100 refuses RCPT TO with its code, and nothing is captured', async () => {
    const set = await mailpit.setChaosTriggers({ Recipient: { ErrorCode: 550, Probability: 100 } });
    expect(set.Recipient).toEqual({ ErrorCode: 550, Probability: 100 });
    expect(await refusal(send('refused@example.com'))).toEqual({ code: 550, command: 'RCPT TO' });
    expect((await mailpit.searchMessages({ query: 'to:refused@example.com' })).messages_count).toBe(0);
    expect((await mailpit.listMessages()).total).toBe(0);
  });

  it('setting a Sender trigger replaces the Recipient one: MAIL FROM is refused', async () => {
    await mailpit.setChaosTriggers({ Sender: { ErrorCode: 421, Probability: 100 } });
    expect((await mailpit.getChaosTriggers()).Recipient).toEqual({ ErrorCode: 451, Probability: 0 });
    expect(await refusal(send())).toEqual({ code: 421, command: 'MAIL FROM' });
  });

  it('an Authentication trigger refuses AUTH', async () => {
    await mailpit.setChaosTriggers({ Authentication: { ErrorCode: 454, Probability: 100 } });
    expect(await refusal(send('ann@example.com', { user: 'any', pass: 'any-key' }))).toMatchObject({ code: 454 });
  });

  it('an empty set turns every trigger off: mail is accepted again', async () => {
    await mailpit.setChaosTriggers({});
    await send('back@example.com');
    expect((await mailpit.listMessages()).messages.map((m) => m.To[0]!.Address)).toEqual(['back@example.com']);
  });

  it("refuses a trigger out of range in Mailpit's words, changing nothing", async () => {
    await mailpit.setChaosTriggers({ Recipient: { ErrorCode: 452, Probability: 10 } });
    const res = await fetch(`${serve.url}/api/v1/chaos`, {
      method: 'PUT',
      headers: JSON_TYPE,
      body: JSON.stringify({ Sender: { ErrorCode: 250, Probability: 100 } }),
    });
    expect([res.status, await res.text()]).toEqual([400, 'error code must be between 400 and 599']);
    const probability = await fetch(`${serve.url}/api/v1/chaos`, { method: 'PUT', headers: JSON_TYPE, body: JSON.stringify({ Sender: { Probability: 101 } }) });
    expect([probability.status, await probability.text()]).toEqual([400, 'probability must be between 0 and 100']);
    expect((await mailpit.getChaosTriggers()).Recipient).toEqual({ ErrorCode: 452, Probability: 10 });
    await mailpit.setChaosTriggers({});
  });

  it('POST /emulator/reset turns every trigger off: a suite resetting between tests inherits no refusals', async () => {
    await mailpit.setChaosTriggers({
      Sender: { ErrorCode: 421, Probability: 100 },
      Recipient: { ErrorCode: 550, Probability: 100 },
      Authentication: { ErrorCode: 454, Probability: 100 },
    });
    expect(await refusal(send('before@example.com'))).toEqual({ code: 421, command: 'MAIL FROM' });
    const reset = await fetch(`${serve.url}/emulator/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(await mailpit.getChaosTriggers()).toEqual({
      Sender: { ErrorCode: 451, Probability: 0 },
      Recipient: { ErrorCode: 451, Probability: 0 },
      Authentication: { ErrorCode: 535, Probability: 0 },
    });
    await send('after@example.com');
    expect((await mailpit.listMessages()).messages.map((m) => m.To[0]!.Address)).toEqual(['after@example.com']);
  });
});

describe('yard.setChaos (mailyard/testing)', () => {
  it('sets the triggers with enableChaos, and reset() turns them off; without it, Mailpit\'s "Chaos is not enabled"', async () => {
    const yard = await startMailyard({ ui: false, enableChaos: true });
    const off = await startMailyard({ ui: false });
    try {
      expect((await yard.setChaos({ Recipient: { ErrorCode: 550, Probability: 100 } })).Recipient).toEqual({ ErrorCode: 550, Probability: 100 });
      const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: yard.smtpPort, secure: false, ignoreTLS: true });
      await expect(smtp.sendMail({ from: 'app@example.com', to: 'x@example.com', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
      expect((await yard.control.countMessages({})).data.count).toBe(0);
      // yard.reset() between tests: the next test's mail is accepted.
      await yard.reset();
      expect((await yard.control.getChaos()).data.triggers.Recipient).toEqual({ ErrorCode: 451, Probability: 0 });
      await smtp.sendMail({ from: 'app@example.com', to: 'next@example.com', text: 'x' });
      expect((await yard.control.countMessages({})).data.count).toBe(1);
      const err = await off.setChaos({}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 400, message: expect.stringContaining('Chaos is not enabled') });
    } finally {
      await Promise.all([yard.stop(), off.stop()]);
    }
  });
});
