import { Readable } from 'node:stream';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process';
import { RawSmtpClient } from '../helpers/smtp-client';

/**
 * `mailyard serve --smtp-max-size 60MB` takes a 50 MB message (the default, 25 MB, refuses it) and
 * says its limit in EHLO. The message is streamed to the sink as it is made, so this process never
 * holds it; the emulator stores it in memory (`--memory`).
 */
const MB = 1024 * 1024;
let serve: ServeProcess;
let smtpPort: number;

/** A message of about `bytes` bytes (whole lines: its exact length is answered), made as the socket takes it. */
function bigMessage(bytes: number): { stream: Readable; length: number } {
  const head = Buffer.from('From: app@example.com\r\nTo: big@example.com\r\nSubject: Fifty megabytes\r\nMessage-ID: <big@app.test>\r\n\r\n');
  const line = Buffer.from(`${'x'.repeat(76)}\r\n`);
  const chunk = Buffer.concat(Array.from({ length: 1024 }, () => line));
  const length = head.length + Math.floor((bytes - head.length) / line.length) * line.length;
  let left = length - head.length;
  let started = false;
  const stream = new Readable({
    read() {
      if (!started) {
        started = true;
        this.push(head);
        return;
      }
      if (left <= 0) return void this.push(null);
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      this.push(piece);
    },
  });
  return { stream, length };
}

beforeAll(async () => {
  serve = await startServeProcess(['--memory', '--http-port', '0', '--smtp-max-size', '60MB']);
  smtpPort = Number(/^SMTP:\s+smtp:\/\/127\.0\.0\.1:(\d+) /m.exec(serve.stdout())![1]);
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
});

describe('--smtp-max-size', () => {
  it('is advertised in EHLO SIZE', async () => {
    const { client } = await RawSmtpClient.open(smtpPort);
    const ehlo = await client.command('EHLO client.test');
    expect(ehlo.text.split('\n')).toContain(`SIZE ${60 * MB}`);
    await client.command('QUIT');
  });

  it('takes a 50 MB message whole', { timeout: 120_000 }, async () => {
    const message = bigMessage(50 * MB);
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    const info = await smtp.sendMail({ envelope: { from: 'app@example.com', to: 'big@example.com' }, raw: message.stream });
    expect(info.response).toMatch(/^250 /);
    const page = (await (await fetch(`${serve.url}/api/v1/messages`)).json()) as { messages: Array<{ Size: number; Subject: string }> };
    expect(page.messages.map((m) => [m.Subject, m.Size])).toEqual([['Fifty megabytes', message.length]]);
    expect(message.length).toBeGreaterThan(50 * MB - 100);
  });
});
