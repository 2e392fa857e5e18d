import { SUPPRESSIONS_LIMIT, type Suppression, type SuppressionList } from '../../../../src-shared/schemas/suppressions';
import { type Clock, isoTimestamp } from '../../clock';
import { appError } from '../../error-catalogue';
import type { SuppressionRow, SuppressionsRepo } from '../../store/suppressions.repo';

export interface SuppressionsDeps {
  repo: SuppressionsRepo;
  clock: Clock;
}

const toSuppression = (r: SuppressionRow): Suppression => ({
  email: r.email_lc,
  source: r.source,
  reason: r.reason,
  message_id: r.message_id,
  since: r.created_at,
});

/**
 * An account's suppression list: the one way in and out of it. The email events (an unsubscribe,
 * a hard bounce, a spam complaint: MessageLog), `/v1` subscribe and unsubscribe, and the control
 * API's removal all write through here; sending reads it (a suppressed recipient's copy fails at once).
 */
export class SuppressionsService {
  constructor(private readonly deps: SuppressionsDeps) {}

  /**
   * Puts the address (case-insensitive) on the account's list, now; an entry already there stays as
   * it was (its first cause and date). `messageId`: the copy whose event suppressed it.
   */
  add(accountId: string, email: string, source: string, cause: { reason?: string; messageId?: string } = {}): void {
    this.deps.repo.suppress(accountId, email.toLowerCase(), source, isoTimestamp(this.deps.clock.now()), cause.reason, cause.messageId ?? null);
  }

  /** Takes the address (case-insensitive) off the list; false when it was not on it. */
  lift(accountId: string, email: string): boolean {
    return this.deps.repo.unsuppress(accountId, email.toLowerCase());
  }

  /** Lifts the address's suppression (case-insensitive); 404 when it is not suppressed. */
  remove(accountId: string, email: string): { account_id: string; email: string; removed: true } {
    if (!this.lift(accountId, email)) throw appError('notSuppressed', { email });
    return { account_id: accountId, email: email.toLowerCase(), removed: true };
  }

  /** Whether the address (already lower-cased) is on the account's list: one narrow read per copy sent. */
  has(accountId: string, emailLc: string): boolean {
    return this.deps.repo.isSuppressed(accountId, emailLc);
  }

  /**
   * The account's suppressed addresses, newest first (at most SUPPRESSIONS_LIMIT, `truncated` says so);
   * with `emails`, only their entries, each looked up alone (the Send form's recipients, however long the list).
   */
  list(accountId: string, emails?: readonly string[]): SuppressionList {
    if (emails !== undefined) {
      const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()).filter(Boolean))];
      const rows = wanted.flatMap((e) => this.deps.repo.suppression(accountId, e) ?? []);
      return { account_id: accountId, suppressions: rows.map(toSuppression), truncated: false };
    }
    const rows = this.deps.repo.suppressions(accountId);
    return {
      account_id: accountId,
      suppressions: rows.slice(0, SUPPRESSIONS_LIMIT).map(toSuppression),
      truncated: rows.length > SUPPRESSIONS_LIMIT,
    };
  }

  /** The address's entry (case-insensitive), or null when it is not suppressed. */
  entry(accountId: string, email: string): Suppression | null {
    const row = this.deps.repo.suppression(accountId, email.toLowerCase());
    return row ? toSuppression(row) : null;
  }
}
