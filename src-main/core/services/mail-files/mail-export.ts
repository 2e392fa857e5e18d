import { mboxEntry } from '../../../../src-shared/mbox';
import type { MessageListRow } from '../../store/messages.repo';

/** The list's filters (the Messages search and the rest), as an export takes them. */
export interface ExportFilter {
  q?: string;
  status?: string;
  campaign_id?: string;
  account_id?: string;
}

export interface MailExportDeps {
  /** Every copy the filters find, oldest first (MessagesService.allMatching). */
  allMatching: (filter: ExportFilter) => Promise<MessageListRow[]>;
  /** A copy's raw message, or undefined when it went since it was found. */
  raw: (id: string) => Buffer | undefined;
}

/**
 * The messages a search finds as an mbox (mboxrd), oldest first: each copy's raw message byte for
 * byte after a `From <sender> <date>` line, the date its creation on the emulator clock. `mailyard
 * export` and the Messages screen's Export download the same file.
 */
export class MailExport {
  constructor(private readonly deps: MailExportDeps) {}

  /** The copies are found first (a bad filter fails before any byte); then one entry at a time, as the reader takes them. */
  async mbox(filter: ExportFilter): Promise<AsyncIterable<Uint8Array>> {
    const rows = await this.deps.allMatching(filter);
    const raw = this.deps.raw;
    return (async function* () {
      for (const row of rows) {
        // A copy deleted (or pruned) since the search is not there to write.
        const bytes = raw(row.id);
        if (bytes !== undefined) yield mboxEntry(bytes, row.from_email, new Date(row.created_ms));
      }
    })();
  }
}
