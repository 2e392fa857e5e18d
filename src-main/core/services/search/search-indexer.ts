import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { DerivedText, PendingCopy, SearchIndexRepo } from '../../store/search-index.repo';
import { isStoreFull, STORE_FULL_RETRY_MS } from '../../store/store-space';
import { DERIVE_TURN_MS, type TextJob, turnsEvery } from './derive-text';

/** Derives the text of a batch of copies (deriveTexts, on the mail thread when there is one). */
export type DeriveTexts = (job: TextJob) => Promise<DerivedText[]>;

export interface SearchIndexerOptions {
  logger: Logger;
  /** After a copy is stored, how long the indexer waits for more to index them together (default GATHER_MS). */
  gatherMs?: number;
  /** Copies one batch takes at most (default 256). */
  batchCopies?: number;
  /** Bytes of stored content one batch reads at most, past its first copy (default 8 MiB). */
  batchBytes?: number;
  /** Bytes of derived text one write transaction takes at most, past its first copy (default WRITE_TEXT_BYTES). */
  writeTextBytes?: number;
  /**
   * Called with the rowids of copies just indexed, before anyone waiting for them is told (the tag
   * rules judge them here: a search then finds them with their tags).
   */
  onIndexed?: (rowids: number[]) => void;
}

/**
 * Copies stored within this long of each other are indexed in one batch: FTS5 writes a segment per
 * transaction, and under load a batch of 100 costs a fifth less a copy than batches of 10. A search
 * never waits it out (it asks the indexer to run at once).
 */
export const GATHER_MS = 100;

/**
 * Of each stored message, the index reads this much: its header block and the first 1 MiB of its body
 * (BODY_PARSE_LIMIT), however large the message (a 24 MB one is neither read whole nor copied to the
 * mail thread).
 */
export const INDEXED_PREFIX = 2 * 1024 * 1024;

/**
 * One write transaction takes copies whose derived text (body, header lines, addresses) adds up to
 * at most this much, and the indexer lets the event loop turn between two: FTS5's cost follows the
 * text, about 50 ns a byte here, so a transaction holds the loop some 50 ms; smaller ones cost
 * throughput (at 512 KiB, indexing test/reliability/wide-to-index.test.ts's sends took a tenth
 * longer). A send of 1,000 recipients whose To line names them all gives each copy 20 KB of header
 * text: written in one transaction, its 256-copy batches held the loop 2.4 s, long enough for an
 * HTTP client's next request on a kept-alive connection to find it closed.
 */
export const WRITE_TEXT_BYTES = 1024 * 1024;

/**
 * Keeps the search indexes (message_search, message_addresses) up with the stored copies, off the
 * accepting path: the SMTP sink's `250` and the send's `200` come once a copy is in `messages`, and
 * its index rows follow here, a batch at a time. A stored copy is queued in the same transaction
 * (search_pending, migration 0025), so a kill -9 loses no entry: `start()` indexes what was left.
 *
 * Per batch: the queued copies and their sends' content are read, the text (body words, header lines,
 * addresses) is derived on the mail thread (services/mail-thread), and the rows are written in one
 * transaction. FTS5 writes a segment per transaction, so a batch of 200 costs about a fifth of 200
 * single writes.
 *
 * A search by words waits for `ready()`, which resolves once every copy stored before it was called
 * is indexed (under the heaviest load, a fraction of a second), or at its bound with how many are not.
 * Nothing else waits for the index: the waits, the logs, a copy's detail and the counts read the
 * copies' own rows.
 */
export class SearchIndexer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | null = null;
  private closed = false;
  /** The highest rowid indexed (or found gone) since start: waiters for copies up to it are done. */
  private indexedUpTo = 0;
  private readonly waiters: Array<{ upTo: number; resolve: () => void }> = [];

  constructor(
    private readonly repo: SearchIndexRepo,
    private readonly derive: DeriveTexts,
    private readonly options: SearchIndexerOptions,
  ) {}

  /** Indexes what a previous run left queued (a crash between a copy's commit and its index rows). */
  start(): void {
    this.repo.dropOrphans();
    if (this.repo.waiting() > 0) this.schedule(0);
  }

  /** New copies were stored: index them soon, together with those that follow within `gatherMs`. */
  notify(): void {
    this.schedule(this.options.gatherMs ?? GATHER_MS);
  }

  /**
   * Resolves once every copy stored before this call is in the search indexes, with 0; or after
   * `waitMs`, with how many copies are still waiting to be indexed then (a search then finds only
   * what is indexed, and says so).
   */
  ready(waitMs: number): Promise<number> {
    const upTo = this.repo.newestWaiting();
    if (upTo === 0 || this.closed) return Promise.resolve(0);
    return new Promise<number>((resolve) => {
      const waiter = { upTo, resolve: () => done(0) };
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        const waiting = this.repo.waiting();
        this.options.logger.debug({ waitMs, waiting }, 'search index still catching up: searching what is indexed');
        done(waiting);
      }, waitMs);
      const done = (waiting: number) => {
        clearTimeout(timer);
        resolve(waiting);
      };
      this.waiters.push(waiter);
      this.schedule(0);
    });
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.draining !== null) return;
    if (this.timer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draining = this.drain().finally(() => {
        this.draining = null;
        // Copies stored while the last batch was written, or a rowid reused below the last one.
        if (!this.closed && this.repo.waiting() > 0) this.schedule(this.options.gatherMs ?? GATHER_MS);
      });
    }, delayMs);
  }

  private async drain(): Promise<void> {
    let after = 0;
    while (!this.closed) {
      const batch = await this.take(after);
      if (this.closed) return;
      if (batch.copies.length === 0) break;
      const texts = await this.derive(batch.job);
      if (this.closed) return;
      const rows = batch.copies.map((copy, i) => ({
        copy,
        text: withoutCutSummary(texts[i] ?? { body: '', headers: '', addresses: '' }, batch.cut.has(copy.content_id)),
      }));
      for (const chunk of byTextBytes(rows, this.options.writeTextBytes ?? WRITE_TEXT_BYTES)) {
        try {
          this.repo.write(chunk);
        } catch (err) {
          if (isStoreFull(err)) {
            // The queue keeps them; the next try comes once the disk may have room.
            this.schedule(STORE_FULL_RETRY_MS);
            return;
          }
          this.options.logger.error({ err }, 'search index write failed: these copies are searched by their columns only');
          return;
        }
        if (this.options.onIndexed) {
          try {
            this.options.onIndexed(chunk.map((r) => r.copy.rowid));
          } catch (err) {
            this.options.logger.error({ err }, 'after indexing: tag rules not applied to these copies');
          }
        }
        after = chunk[chunk.length - 1]!.copy.rowid;
        this.advance(after);
        // Requests and SMTP commands that came in meanwhile are served before the next transaction.
        await nextTurn();
        if (this.closed) return;
      }
    }
    // Nothing left after `after`: every copy a waiter asked for is indexed.
    this.advance(Number.MAX_SAFE_INTEGER);
  }

  /**
   * The next batch after `after`: its copies and the job for the deriver (each content read once).
   * SQLite reads a value whole even for its start, about 70 ms for a 24 MB message here: past
   * DERIVE_TURN_MS of reading, the event loop turns before the next content is read.
   */
  private async take(after: number): Promise<{ copies: PendingCopy[]; job: TextJob; cut: Set<string> }> {
    const candidates = this.repo.pending(after, this.options.batchCopies ?? 256);
    const limit = this.options.batchBytes ?? 8 * 1024 * 1024;
    const contents = new Map<string, TextJob['contents'][number]>();
    const copies: PendingCopy[] = [];
    const cut = new Set<string>();
    let bytes = 0;
    const turn = turnsEvery(DERIVE_TURN_MS);
    for (const copy of candidates) {
      if (!contents.has(copy.content_id)) {
        await turn();
        const stored = this.repo.contentStart(copy.content_id, INDEXED_PREFIX);
        const content =
          stored?.recipe != null
            ? { id: copy.content_id, raw: Buffer.alloc(0), recipe: stored.recipe }
            : { id: copy.content_id, raw: stored?.raw ?? Buffer.alloc(0) };
        const size = content.raw.length + (content.recipe?.length ?? 0);
        if (copies.length > 0 && bytes + size > limit) break;
        contents.set(copy.content_id, content);
        if (content.raw.length >= INDEXED_PREFIX) cut.add(copy.content_id);
        bytes += size;
      }
      copies.push(copy);
    }
    return {
      copies,
      cut,
      job: {
        contents: [...contents.values()],
        copies: copies.map((c) => ({ contentId: c.content_id, patch: c.patch })),
      },
    };
  }

  private advance(upTo: number): void {
    this.indexedUpTo = Math.max(this.indexedUpTo, upTo);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i]!.upTo <= this.indexedUpTo) this.waiters.splice(i, 1)[0]!.resolve();
    }
    if (upTo === Number.MAX_SAFE_INTEGER) this.indexedUpTo = 0;
  }

  /** Stops indexing: what is queued stays queued for the next start. Resolves once a batch under way is done with. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w.resolve();
    await this.draining;
  }
}

/**
 * A content read only in part (INDEXED_PREFIX) may have attachments past its cut: Mailpit's summary of
 * its copies is left to the list, which makes it from the whole message once (MailpitService).
 */
function withoutCutSummary(text: DerivedText, cut: boolean): DerivedText {
  if (!cut) return text;
  const { mailpit: _, ...rest } = text;
  return rest;
}

/** Rows in runs whose derived text adds up to at most `limit` bytes (a run has at least one row). */
function* byTextBytes<T extends { text: DerivedText }>(rows: T[], limit: number): Generator<T[]> {
  let run: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.text.body.length + row.text.headers.length + row.text.addresses.length;
    if (run.length > 0 && bytes + size > limit) {
      yield run;
      run = [];
      bytes = 0;
    }
    run.push(row);
    bytes += size;
  }
  if (run.length > 0) yield run;
}
