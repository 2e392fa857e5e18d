import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { findMailWorker, inlineMailWork, MailThread } from '../../../../../src-main/core/services/mail-thread/mail-thread';

const logger = pino({ level: 'silent' });
const source = join(import.meta.dirname, '../../../../../src-main/core/services/mail-thread');
let thread: MailThread | undefined;
let dir: string | undefined;

afterEach(async () => {
  await thread?.close();
  thread = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const job = {
  contents: [{ id: 'c1', raw: Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: Hello\r\n\r\nthe words\r\n') }],
  copies: [{ contentId: 'c1', patch: null }],
};

describe('the mail thread, warmed', () => {
  it('from source: warm() resolves true once the thread has loaded, and the thread derives', async () => {
    const program = findMailWorker(source);
    expect(program?.file).toMatch(/worker\.ts$/);
    thread = new MailThread(program!, logger);
    await expect(thread.warm()).resolves.toBe(true);
    await expect(thread.warm()).resolves.toBe(true);
    const [text] = await thread.derive(job);
    expect(text?.body).toContain('the words');
  });

  it('a program that stops before it loads: warm() resolves false, and the work is done inline', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailyard-thread-'));
    const file = join(dir, 'dies.mjs');
    await writeFile(file, 'process.exit(3);\n');
    thread = new MailThread({ file, execArgv: [] }, logger);
    await expect(thread.warm()).resolves.toBe(false);
    const [text] = await thread.derive(job);
    expect(text?.body).toContain('the words');
  });

  it('closed while loading: warm() resolves false', async () => {
    thread = new MailThread(findMailWorker(source)!, logger);
    const warming = thread.warm();
    await thread.close();
    await expect(warming).resolves.toBe(false);
  });

  it('inline work has no thread to warm', async () => {
    await expect(inlineMailWork().warm()).resolves.toBe(false);
  });
});
