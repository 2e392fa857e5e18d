import { useCallback, useEffect, useState } from 'react';
import type { Suppression } from '../../../src-shared/schemas/suppressions';
import { control, describeError } from '../../api/clients';
import { live } from '../../api/live';
import { useRun } from '../../api/use-run';
import { useChosenAccount } from '../../components/AccountSelect';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { useOverview } from '../../stores/overview-store';
import { ConfirmDialog } from '../messages/ConfirmDialog';

/** A suppression's cause in a few words: "hard bounce", "spam complaint", "unsubscribed", "API". */
export function causeOf(s: Suppression): string {
  if (s.source === 'unsubscribe event') return 'unsubscribed';
  if (s.source === 'api') return 'unsubscribed through the API';
  return s.source;
}

/**
 * An account's suppression list: each address with why (hard bounce and its reply, spam complaint,
 * unsubscribe), since when and the message that caused it; Remove (after a confirmation) lifts it.
 */
export function Suppressions() {
  const { accounts } = useOverview();
  const [account] = useChosenAccount(accounts);
  const accountId = account?.id;
  const [list, setList] = useState<{ accountId: string; rows: Suppression[]; truncated: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error: removeError, run, clearError } = useRun();
  const load = useCallback(async () => {
    if (!accountId) return;
    try {
      const res = await control.listSuppressions({ account_id: accountId });
      setList({ accountId, rows: res.data.suppressions, truncated: res.data.truncated });
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  }, [accountId]);
  useEffect(() => {
    setNotice(null);
    void load();
    // An event that suppressed its recipient (the emulator says which did): the list may have grown.
    const off = live.on('message.updated', (u) => {
      if (u.suppressed) void load();
    });
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      off();
      offReconnect();
    };
  }, [load]);
  const rows = list && list.accountId === accountId ? list.rows : null;
  const remove = (s: Suppression) =>
    run(async () => {
      await control.removeSuppression(s.email, { account_id: accountId });
      setRemoving(null);
      setNotice(`${s.email} is no longer suppressed: its next messages are simulated again.`);
      await load();
    });
  return (
    <main className="wide">
      {error && <p className="error">{error}</p>}
      <section className="card" aria-labelledby="suppressions-title">
        <div className="card-head">
          <h2 id="suppressions-title">Suppressions{account && accounts.length > 1 ? ` of ${account.name}` : ''}</h2>
          <span className="muted small">
            Addresses that get no more mail from this account: a hard bounce, a spam complaint or an unsubscribe puts them here. A message to one fails as
            suppressed, with no events.
          </span>
        </div>
        {notice && (
          <p className="notice small" role="status">
            {notice}
          </p>
        )}
        {rows && rows.length === 0 && <p className="muted">No suppressed addresses.</p>}
        {rows && rows.length > 0 && (
          <table className="table suppressions-table" aria-label="Suppressed addresses">
            <thead>
              <tr>
                <th>Address</th>
                <th>Reason</th>
                <th>
                  Since <span className="muted small">(emulator clock)</span>
                </th>
                <th>Message</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.email} data-testid="suppression">
                  <td>{s.email}</td>
                  <td>
                    <strong>{causeOf(s)}</strong>
                    {s.reason && s.source !== 'unsubscribe event' && <div className="muted small wrap">{s.reason}</div>}
                  </td>
                  <td>
                    <Time emulator={s.since} />
                  </td>
                  <td>{s.message_id ? <Link to={`/messages/${s.message_id}`}>the message</Link> : <span className="muted">—</span>}</td>
                  <td>
                    <button
                      type="button"
                      className="button"
                      aria-label={`Remove ${s.email}`}
                      onClick={() => {
                        clearError();
                        setRemoving(s);
                      }}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list?.truncated && <p className="muted small">Only the newest 1,000 suppressed addresses are shown.</p>}
      </section>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove"
          busy={busy}
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(null)}
        >
          <p>
            Messages to {removing.email} will be simulated again ({causeOf(removing)} put it here).
          </p>
          {removeError && <p className="error">{removeError}</p>}
        </ConfirmDialog>
      )}
    </main>
  );
}
