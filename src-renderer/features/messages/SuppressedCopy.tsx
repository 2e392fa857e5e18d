import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';

/** A copy that failed because its recipient was on the account's suppression list (the logs' failedReason says so). */
export function isSuppressedCopy(d: Detail): boolean {
  return d.status === 'failed' && /suppression list/.test(d.failed_reason);
}

/**
 * The Events tab of a suppressed copy: it never gets events, and why: the suppression's cause, since
 * when and the message that caused it (the detail's `suppression`, while the address is still suppressed).
 */
export function SuppressedCopy({ d }: { d: Detail }) {
  const entry = d.suppression;
  return (
    <div className="pad" data-testid="suppressed-copy">
      <p>
        <strong>Suppressed:</strong> {d.recipient.email} was on this account's suppression list when this message was sent, so it was not delivered and gets no
        events (the simulation schedules none for it).
      </p>
      {entry && (
        <p className="muted" data-testid="suppressed-why">
          Why: {entry.source}
          {entry.reason && entry.source !== 'unsubscribe event' ? ` (${entry.reason})` : ''}, since <Time emulator={entry.since} exact />
          {entry.message_id && entry.message_id !== d.id && (
            <>
              {' · '}
              <Link to={`/messages/${entry.message_id}`}>the message that caused it</Link>
            </>
          )}
          .
        </p>
      )}
      {!entry && <p className="muted">The address is no longer suppressed: its next messages are simulated again.</p>}
      <p className="small">
        <Link to="/suppressions">Suppressions</Link> lists the account's suppressed addresses and lifts one.
      </p>
    </div>
  );
}
