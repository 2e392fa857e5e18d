/**
 * The clients users already have, each with its default settings, against `mailyard serve` as it
 * starts with no TLS option: nodemailer's default transport, Python's smtplib and curl. nodemailer
 * (and PHPMailer) upgrade with STARTTLS whenever EHLO offers it and then refuse a self-signed
 * certificate, so by default the sink offers none. With `--smtp-tls starttls` it does, and a client
 * that trusts the certificate the start-up lines name verifies it and delivers.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process';
import { RawSmtpClient } from '../helpers/smtp-client';

const run = promisify(execFile);
const HAS_CURL = spawnSync('curl', ['--version']).status === 0;

/**
 * Python's smtplib as its docs show it: `smtplib.SMTP(host, port).send_message(msg)`; with a CA file,
 * STARTTLS first with a context that trusts only that certificate (host name checked).
 */
const SMTPLIB = `
import smtplib, ssl, sys
from email.message import EmailMessage
host, port, subject, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
msg = EmailMessage()
msg["From"] = "app@example.com"
msg["To"] = "ann@example.org"
msg["Subject"] = subject
msg.set_content("Sent by smtplib")
if cafile:
    smtp = smtplib.SMTP(host, port)
    smtp.starttls(context=ssl.create_default_context(cafile=cafile))
    smtp.send_message(msg)
else:
    smtplib.SMTP(host, port).send_message(msg)
`;

function sendWithSmtplib(port: number, subject: string, cafile = ''): Promise<unknown> {
  return run('python3', ['-c', SMTPLIB, '127.0.0.1', String(port), subject, cafile], { timeout: 15_000 });
}

/**
 * smtplib to an international address, asked for SMTPUTF8 as its docs allow: `send_message` adds
 * SMTPUTF8 (and BODY=8BITMIME) itself for such an address, so MAIL FROM carries SMTPUTF8 twice.
 * Prints the MAIL FROM line it sent (its debug output) and the DATA reply.
 */
const SMTPLIB_SMTPUTF8 = `
import smtplib, sys
from email.message import EmailMessage
host, port = sys.argv[1], int(sys.argv[2])
msg = EmailMessage()
msg["From"] = "app@example.com"
msg["To"] = "jos\u00e9@example.org"
msg["Subject"] = "smtplib SMTPUTF8"
msg.set_content("Ol\u00e1")
smtp = smtplib.SMTP(host, port)
smtp.set_debuglevel(1)
print(smtp.send_message(msg, mail_options=["SMTPUTF8"]))
smtp.quit()
`;

function smtpPortOf(serve: ServeProcess): number {
  return Number(/^SMTP:\s+smtp:\/\/127\.0\.0\.1:(\d+) /m.exec(serve.stdout())![1]);
}

/** The subjects of the messages the emulator captured, sorted. */
async function capturedSubjects(serve: ServeProcess): Promise<string[]> {
  const list = await (await fetch(`${serve.url}/emulator/messages?limit=50`)).json();
  return (list.data.messages as Array<{ subject: string; source: string }>).map((m) => `${m.source}: ${m.subject}`).sort();
}

describe('mailyard serve by default: every client sends with its default settings', () => {
  let serve: ServeProcess;
  let port: number;

  beforeAll(async () => {
    serve = await startServeProcess(['--http-port', '0', '--memory']);
    port = smtpPortOf(serve);
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
  });

  it('says STARTTLS is off, offers none in EHLO and refuses the command', async () => {
    expect(serve.stdout()).toMatch(/^SMTP: .*; STARTTLS off \(--smtp-tls starttls\)\)$/m);
    expect(serve.stdout()).not.toMatch(/^TLS cert:/m);
    const { client } = await RawSmtpClient.open(port);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.code).toBe(250);
    expect(ehlo.text).toContain('AUTH PLAIN LOGIN');
    expect(ehlo.text).not.toContain('STARTTLS');
    expect((await client.command('STARTTLS')).code).toBeGreaterThanOrEqual(500);
    client.close();
  });

  it("delivers with nodemailer's default transport, createTransport({ host, port }), and with AUTH", async () => {
    const info = await nodemailer.createTransport({ host: '127.0.0.1', port }).sendMail({
      from: 'app@example.com',
      to: 'ann@example.org',
      subject: 'nodemailer default',
      text: 'Sent by nodemailer',
    });
    expect(info.response).toMatch(/^250 2\.6\.0 OK queued as [0-9A-Z]{26}$/);
    const key = /^API key:\s+(\S+)/m.exec(serve.stdout())![1]!;
    const withAuth = nodemailer.createTransport({ host: '127.0.0.1', port, auth: { user: 'app', pass: key } });
    await withAuth.sendMail({ from: 'app@example.com', to: 'ann@example.org', subject: 'nodemailer auth', text: 'Sent by nodemailer' });
    expect(await capturedSubjects(serve)).toEqual(expect.arrayContaining(['smtp: nodemailer auth', 'smtp: nodemailer default']));
  });

  it("delivers with Python's smtplib.SMTP(host, port).send_message(msg)", async () => {
    await sendWithSmtplib(port, 'smtplib default');
    expect(await capturedSubjects(serve)).toContain('smtp: smtplib default');
  });

  it("delivers with smtplib's send_message(msg, mail_options=['SMTPUTF8']) to an international address (SMTPUTF8 twice on MAIL FROM)", async () => {
    const { stderr } = (await run('python3', ['-c', SMTPLIB_SMTPUTF8, '127.0.0.1', String(port)], { timeout: 15_000 })) as { stderr: string };
    // What makes this case: smtplib's own debug output shows the parameter sent twice.
    expect(stderr).toMatch(/send: 'mail FROM:<app@example\.com> [^']*SMTPUTF8 SMTPUTF8/);
    expect(await capturedSubjects(serve)).toContain('smtp: smtplib SMTPUTF8');
  });

  it.skipIf(!HAS_CURL)('delivers with curl smtp://', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-curl-'));
    try {
      const file = join(dir, 'msg.eml');
      await writeFile(file, 'From: app@example.com\r\nTo: ann@example.org\r\nSubject: curl default\r\n\r\nSent by curl\r\n');
      await run(
        'curl',
        ['--silent', '--show-error', `smtp://127.0.0.1:${port}`, '--mail-from', 'app@example.com', '--mail-rcpt', 'ann@example.org', '--upload-file', file],
        {
          timeout: 15_000,
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await capturedSubjects(serve)).toContain('smtp: curl default');
  });
});

describe('mailyard serve --smtp-tls starttls', () => {
  let dir: string;
  let serve: ServeProcess;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailyard-smtp-tls-'));
    serve = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--smtp-tls', 'starttls']);
    port = smtpPortOf(serve);
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await rm(dir, { recursive: true, force: true });
  });

  it('offers STARTTLS and names the certificate to trust; clients that trust it verify it and deliver', async () => {
    expect(serve.stdout()).toMatch(/^SMTP: .*; STARTTLS offered\)$/m);
    const certFile = join(dir, 'smtp-tls-cert.pem');
    expect(serve.stdout()).toContain(`TLS cert: ${certFile}  (self-signed`);
    const { client } = await RawSmtpClient.open(port);
    expect((await client.command('EHLO client.test')).text).toContain('STARTTLS');
    client.close();

    // Trusting nothing but the system's CAs, the default transport upgrades and refuses the certificate.
    await expect(
      nodemailer.createTransport({ host: '127.0.0.1', port }).sendMail({ from: 'app@example.com', to: 'ann@example.org', subject: 'untrusted', text: 't' }),
    ).rejects.toThrow(/self-signed certificate/);
    // Trusting the named certificate, the certificate and its host name check pass.
    const ca = await readFile(certFile, 'utf8');
    await nodemailer
      .createTransport({ host: '127.0.0.1', port, requireTLS: true, tls: { ca } })
      .sendMail({ from: 'app@example.com', to: 'ann@example.org', subject: 'nodemailer verified', text: 't' });
    await sendWithSmtplib(port, 'smtplib verified', certFile);
    expect(await capturedSubjects(serve)).toEqual(['smtp: nodemailer verified', 'smtp: smtplib verified']);
  });
});
