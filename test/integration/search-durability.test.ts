import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src-main/core/store/database';
import { ControlClient } from '../../src-shared/clients';
import { whenIndexed } from '../helpers/search';
import { startServeProcess } from '../helpers/serve-process';

/**
 * The search index is written after a copy is stored, off the accepting path (so indexing never slows
 * the intake). A copy
 * accepted just before a kill -9 is not indexed yet; after the restart it must be found by a search of
 * its body's words with no one doing anything, and a search right after an answer must find it too.
 */
const key = 'durable-key-0123456789';
const word = (i: number) => `quokka${String(i).padStart(4, '0')}zeta`;

/** A burst of sends (HTTP) and SMTP messages, each with its own word in its body. Resolves when every one is accepted. */
async function burst(url: string, smtpPort: number, from: number, count: number): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: 8,
    auth: { user: 'app', pass: key },
  });
  try {
    await Promise.all(
      Array.from({ length: count }, async (_, k) => {
        const i = from + k;
        if (i % 2 === 0) {
          const res = await fetch(`${url}/v1/email/send`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              from: { email: 'app@example.com' },
              to: [{ email: `user${i}@example.org` }],
              subject: `Order ${i}`,
              content: [{ type: 'text/html', value: `<p>Your parcel ${word(i)} left.</p>` }],
            }),
          });
          expect(res.status).toBe(200);
        } else {
          const info = await transport.sendMail({
            from: 'app@example.com',
            to: `user${i}@example.org`,
            subject: `Order ${i}`,
            text: `Your parcel ${word(i)} left.`,
          });
          expect(info.response).toMatch(/^250 /);
        }
      }),
    );
  } finally {
    transport.close();
  }
}

/** What a search for copy i's word finds once the index has it; an answer without it must say it is incomplete. */
const found = async (control: ControlClient, i: number) => {
  const answer = await whenIndexed(async () => {
    const page = await control.listMessages({ q: word(i), limit: 5 });
    if (page.data.messages.length === 0 && page.data.index_pending === undefined)
      throw new Error(`a search for ${word(i)} found nothing and said it was complete`);
    return page;
  });
  return answer.data.messages.map((m) => m.recipient.email);
};

describe('the search index and a kill -9', () => {
  it('a copy accepted just before a kill -9 is found by search after the restart, with nothing done by hand', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-search-kill-'));
    try {
      // A burst ending in a kill: the last copies are accepted (committed) but not yet indexed. The
      // indexer may have caught up on a fast machine: then the burst is repeated, larger.
      let sent = 0;
      let leftPending = 0;
      for (let attempt = 0; attempt < 5 && leftPending === 0; attempt++) {
        const serve = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', key]);
        const smtpPort = Number(/^SMTP:\s+smtp:\/\/[^\s]+:(\d+)/m.exec(serve.stdout())![1]);
        const count = 100 * (attempt + 1);
        await burst(serve.url, smtpPort, sent, count).catch((err: unknown) => {
          serve.child.kill('SIGKILL');
          throw err;
        });
        serve.child.kill('SIGKILL');
        expect(await serve.exited).toBe('SIGKILL');
        sent += count;
        const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
        try {
          expect((db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBe(sent);
          leftPending = (db.prepare('SELECT COUNT(*) AS n FROM search_pending').get() as { n: number }).n;
        } finally {
          db.close();
        }
      }
      expect(leftPending, 'some accepted copies were not indexed at the kill').toBeGreaterThan(0);

      const serve = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', key]);
      try {
        // The restarted emulator indexes what was left on its own: no search, no request, asks it to.
        const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
        try {
          const pending = () => (db.prepare('SELECT COUNT(*) AS n FROM search_pending').get() as { n: number }).n;
          const deadline = Date.now() + 20_000;
          while (pending() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
          expect(pending()).toBe(0);
        } finally {
          db.close();
        }
        // Every copy, the last ones accepted included, is found by a word of its body.
        const control = new ControlClient({ baseUrl: serve.url });
        for (let i = 0; i < sent; i++) expect(await found(control, i), word(i)).toEqual([`user${i}@example.org`]);
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a search right after the answer finds the copy, while a burst is still being indexed', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailyard-search-fresh-'));
    const serve = await startServeProcess(['--http-port', '0', '--data-dir', dir, '--api-key', key]);
    try {
      const smtpPort = Number(/^SMTP:\s+smtp:\/\/[^\s]+:(\d+)/m.exec(serve.stdout())![1]);
      const control = new ControlClient({ baseUrl: serve.url });
      const load = burst(serve.url, smtpPort, 0, 300);
      await burst(serve.url, smtpPort, 1000, 2);
      expect(await found(control, 1000)).toEqual(['user1000@example.org']);
      expect(await found(control, 1001)).toEqual(['user1001@example.org']);
      expect((await whenIndexed(() => control.countMessages({ q: word(1001) }))).data.count).toBe(1);
      await load;
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
