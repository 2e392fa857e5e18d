import type Database from 'better-sqlite3';
import { openSmtp } from '../helpers/smtp-replies.mjs';
import { percentile } from './scale';

/**
 * Freshness of the search under intake load: probes sent one at a time (every `everyMs`) through
 * SMTP and through the send API while the benchmark's load runs, each with a word of its own in its
 * body. Per probe, two figures from its `250` (or `200`):
 * - `search`: until a search for its word (GET /emulator/messages?q=, asked at once, and again while
 *   an answer without it says the index had not caught up) answers with it;
 * - `indexed`: until its word is in the search index itself (what a search finds without waiting).
 * Besides, how long each search took to answer (a search waits at most 1 s for the index, then
 * answers with what is indexed and says so: `incomplete_answers`).
 */
export interface FreshnessFigures {
  probes: number;
  search_p50_ms: number;
  search_p99_ms: number;
  indexed_p50_ms: number;
  indexed_p99_ms: number;
  answer_p99_ms: number;
  answer_max_ms: number;
  incomplete_answers: number;
}

export async function probeFreshness(opts: {
  http: string;
  smtpPort: number;
  apiKey: string;
  /** A read-only connection to the emulator's store. */
  db: Database.Database;
  /** Runs the load; probing stops when it resolves. */
  load: Promise<unknown>;
  everyMs?: number;
}): Promise<FreshnessFigures> {
  const auth = { authorization: `Bearer ${opts.apiKey}` };
  const indexed = opts.db.prepare<[string], { n: number }>('SELECT 1 AS n FROM message_search WHERE message_search MATCH ?');
  const search: number[] = [];
  const inIndex: number[] = [];
  const answers: number[] = [];
  let incomplete = 0;
  const watching: Array<{ word: string; accepted: number }> = [];
  let done = false;
  void opts.load.then(() => (done = true));
  const watcher = setInterval(() => {
    for (let i = watching.length - 1; i >= 0; i--) {
      const w = watching[i]!;
      if (indexed.get(w.word) !== undefined) {
        inIndex.push(performance.now() - w.accepted);
        watching.splice(i, 1);
      }
    }
  }, 5);
  const smtp = await openSmtp(opts.smtpPort);
  await smtp.read();
  smtp.socket.write('EHLO probe.test\r\n');
  await smtp.read();
  try {
    for (let n = 0; !done; n++) {
      const word = `probe${n}x${Date.now().toString(36)}`;
      let accepted: number;
      if (n % 2 === 0) {
        smtp.socket.write(`MAIL FROM:<probe@example.com>\r\nRCPT TO:<probe${n}@example.org>\r\nDATA\r\n`);
        await smtp.read();
        await smtp.read();
        await smtp.read();
        smtp.socket.write(`Subject: probe ${n}\r\nFrom: probe@example.com\r\nTo: probe${n}@example.org\r\n\r\nThe word is ${word}.\r\n.\r\n`);
        const reply = await smtp.read();
        if (reply.code !== 250) throw new Error(`probe refused: ${reply.line}`);
        accepted = performance.now();
      } else {
        const res = await fetch(`${opts.http}/v1/email/send`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            from: { email: 'probe@example.com' },
            to: [{ email: `probe${n}@example.org` }],
            subject: `probe ${n}`,
            content: [{ type: 'text/plain', value: `The word is ${word}.` }],
          }),
        });
        if (res.status !== 200) throw new Error(`probe send answered ${res.status}`);
        await res.arrayBuffer();
        accepted = performance.now();
      }
      watching.push({ word, accepted });
      for (;;) {
        const asked = performance.now();
        const found = (await (await fetch(`${opts.http}/emulator/messages?q=${word}`, { headers: auth })).json()) as {
          data: { messages: unknown[]; index_pending?: number };
        };
        answers.push(performance.now() - asked);
        if (found.data.messages.length === 1) break;
        if (found.data.index_pending === undefined) throw new Error(`a search right after the answer did not find probe ${n}, and said it was complete`);
        incomplete++;
      }
      search.push(performance.now() - accepted);
      await new Promise((r) => setTimeout(r, opts.everyMs ?? 50));
    }
    const deadline = performance.now() + 30_000;
    while (watching.length > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    if (watching.length > 0) throw new Error(`${watching.length} probes were not indexed within 30 s`);
  } finally {
    clearInterval(watcher);
    smtp.socket.end('QUIT\r\n');
  }
  const r = (x: number) => Math.round(x);
  return {
    probes: search.length,
    search_p50_ms: r(percentile(search, 50)),
    search_p99_ms: r(percentile(search, 99)),
    indexed_p50_ms: r(percentile(inIndex, 50)),
    indexed_p99_ms: r(percentile(inIndex, 99)),
    answer_p99_ms: r(percentile(answers, 99)),
    answer_max_ms: r(Math.max(...answers)),
    incomplete_answers: incomplete,
  };
}
