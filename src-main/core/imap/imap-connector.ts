import type { ImapFlow } from 'imapflow';
import type { MailerRow } from '../store/mailers.repo';
import type { ImapConnectorDeps } from './imap-deps';
import { describeImapError, imapOptions, SETUP_TIMEOUT_MS, setupTimeoutError } from './imap-options';
import { InboxWatch } from './inbox-watch';
import { systemWallScheduler, withinWallTime } from './reconnect-backoff';

export type { ImapConnectorDeps } from './imap-deps';

/**
 * Keeps every IMAP configuration connected: logs in, opens the inbox, waits for new mail with IDLE,
 * stores each new message and posts it to the configuration's webhook through the dispatcher; a
 * delivery-status notification about a message Mailyard sent becomes that message's `bounce`. A failed
 * connection or login sets `status: error`, sends one `imap_error` per outage, and retries with back-off
 * on wall time. A message mailparser refuses, or one over the size limit, is kept as far as it can be
 * read and the watch moves past it.
 */
export class ImapConnector {
  private readonly watches = new Map<string, InboxWatch>();
  private running = false;

  constructor(private readonly deps: ImapConnectorDeps) {}

  start(): void {
    this.running = true;
    for (const row of this.deps.repo.ofType('imap')) this.follow(row.id, row);
  }

  async stop(): Promise<void> {
    this.running = false;
    const watches = [...this.watches.values()];
    this.watches.clear();
    await Promise.all(watches.map((w) => w.close()));
  }

  /** A configuration was added, changed (reconnect with its new settings) or deleted (undefined). */
  follow(id: string, row: MailerRow | undefined): void {
    if (!this.running) return;
    const current = this.watches.get(id);
    if (current) {
      this.watches.delete(id);
      void current.close();
    }
    if (row?.config_type !== 'imap') return;
    const watch = new InboxWatch({ ...this.deps, mailerId: id });
    this.watches.set(id, watch);
    watch.open();
  }

  /** `POST /emulator/mailers/{id}/test` for IMAP: connect, log in and log out. */
  async test(row: MailerRow): Promise<{ ok: boolean; message: string }> {
    let client: ImapFlow | undefined;
    try {
      const address = await this.deps.serverAddress(row.host);
      const { ImapFlow } = await import('imapflow');
      client = new ImapFlow({ ...imapOptions(row, this.deps.mailers.credentials(row), this.deps.verifyTls, address), verifyOnly: true });
      client.on('error', () => {});
      await withinWallTime(this.deps.wall ?? systemWallScheduler(), SETUP_TIMEOUT_MS, client.connect(), setupTimeoutError);
      return { ok: true, message: `Connected to ${row.host}:${row.port} and logged in as ${row.username}` };
    } catch (err) {
      return { ok: false, message: describeImapError(err) };
    } finally {
      client?.close();
    }
  }
}
