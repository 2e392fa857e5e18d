import { useEffect, useState } from 'react';
import { SUPPRESSION_LOOKUP_MAX, type Suppression } from '../../../src-shared/schemas/suppressions';
import { control } from '../../api/clients';
import { live } from '../../api/live';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { causeOf } from '../suppressions/Suppressions';

/**
 * The entries of the account's suppression list for these recipients, read a moment after they stop
 * changing and again when an event suppresses an address; none while nothing is known (a failed read
 * warns of nothing: the send still goes as the service takes it).
 */
export function useSuppressedRecipients(accountId: string | undefined, addresses: readonly string[]): Suppression[] {
  const [found, setFound] = useState<{ key: string; rows: Suppression[] }>({ key: '', rows: [] });
  const [again, setAgain] = useState(0);
  const wanted = [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter((a) => a.includes('@')))].slice(0, SUPPRESSION_LOOKUP_MAX);
  const key = accountId ? `${accountId}\u0000${wanted.join(',')}` : '';
  useEffect(
    () =>
      live.on('message.updated', (u) => {
        if (u.suppressed) setAgain((n) => n + 1);
      }),
    [],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the account and the addresses; `again` asks once more
  useEffect(() => {
    if (!accountId || wanted.length === 0) return;
    let current = true;
    const t = window.setTimeout(() => {
      control.listSuppressions({ account_id: accountId, email: wanted.join(',') }).then(
        (res) => current && setFound({ key, rows: res.data.suppressions }),
        () => undefined,
      );
    }, 250);
    return () => {
      current = false;
      window.clearTimeout(t);
    };
  }, [key, again]);
  return found.key === key && wanted.length > 0 ? found.rows : [];
}

/**
 * Before a send: which recipients the account's suppression list holds, why and since when. The send
 * is not stopped (the service accepts it): their copies fail as suppressed, with no events.
 */
export function SuppressedRecipients({ accountName, suppressed }: { accountName: string; suppressed: Suppression[] }) {
  if (suppressed.length === 0) return null;
  const one = suppressed.length === 1;
  return (
    <div className="send-suppressed" role="status" data-testid="send-suppressed">
      <p>
        <strong>
          {one ? `${suppressed[0]!.email} is` : `${suppressed.length} recipients are`} on {accountName}’s suppression list.
        </strong>{' '}
        The service accepts the send, but {one ? 'its copy fails' : 'their copies fail'} as suppressed: no delivery, no events.
      </p>
      <ul>
        {suppressed.map((s) => (
          <li key={s.email} data-testid="send-suppressed-address">
            <strong>{s.email}</strong>: {causeOf(s)}
            {s.reason && s.source !== 'unsubscribe event' ? <> (“{s.reason}”)</> : null}, since <Time emulator={s.since} />
          </li>
        ))}
      </ul>
      <p className="small">
        <Link to="/suppressions">See or lift suppressions</Link>
      </p>
    </div>
  );
}
