import { SUPPRESSIONS_LIMIT, type Suppression, type SuppressionList } from '../../../../src-shared/schemas/suppressions';
import { appError } from '../../error-catalogue';
import type { SimulationRepo, SuppressionRow } from '../../store/simulation.repo';

export interface SuppressionsDeps {
  simulation: Pick<SimulationRepo, 'suppressions' | 'suppression' | 'unsuppress'>;
}

const toSuppression = (r: SuppressionRow): Suppression => ({
  email: r.email_lc,
  source: r.source,
  reason: r.reason,
  message_id: r.message_id,
  since: r.created_at,
});

/** An account's suppression list, as the control API and the UI's Suppressions screen see it. */
export class SuppressionsService {
  constructor(private readonly deps: SuppressionsDeps) {}

  /**
   * The account's suppressed addresses, newest first (at most SUPPRESSIONS_LIMIT, `truncated` says so);
   * with `emails`, only their entries, each looked up alone (the Send form's recipients, however long the list).
   */
  list(accountId: string, emails?: readonly string[]): SuppressionList {
    if (emails !== undefined) {
      const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()).filter(Boolean))];
      const rows = wanted.flatMap((e) => this.deps.simulation.suppression(accountId, e) ?? []);
      return { account_id: accountId, suppressions: rows.map(toSuppression), truncated: false };
    }
    const rows = this.deps.simulation.suppressions(accountId);
    return {
      account_id: accountId,
      suppressions: rows.slice(0, SUPPRESSIONS_LIMIT).map(toSuppression),
      truncated: rows.length > SUPPRESSIONS_LIMIT,
    };
  }

  /** The address's entry (case-insensitive), or null when it is not suppressed. */
  entry(accountId: string, email: string): Suppression | null {
    const row = this.deps.simulation.suppression(accountId, email.toLowerCase());
    return row ? toSuppression(row) : null;
  }

  /** Lifts the address's suppression (case-insensitive); 404 when it is not suppressed. */
  remove(accountId: string, email: string): { account_id: string; email: string; removed: true } {
    const emailLc = email.toLowerCase();
    if (!this.deps.simulation.unsuppress(accountId, emailLc)) throw appError('notSuppressed', { email });
    return { account_id: accountId, email: emailLc, removed: true };
  }
}
