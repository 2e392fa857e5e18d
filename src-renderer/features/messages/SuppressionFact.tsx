import type { EmailEventKind } from '../../../src-shared/events';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { SIMULATOR_DOMAIN } from '../../../src-shared/simulator';
import { Link } from '../../components/Link';

/** The event kind behind each status that may suppress its recipient (a hard bounce, a spam complaint, an unsubscribe). */
const SUPPRESSING_KIND: Partial<Record<Detail['status'], EmailEventKind>> = { bounced: 'bounce', spam: 'spam', unsubscribed: 'unsubscribe' };

/**
 * Whether the copy's recipient is on the account's suppression list now, in words, for a copy whose
 * status may have put it there; null for any other. Both facts are the emulator's answers: the
 * detail's `suppression` (the list now, so a lifted suppression reads "not suppressed") and its
 * `fire_outcomes` (whether that kind of event suppresses this address at all: a simulator address
 * is exempt from bounces and complaints).
 */
export function suppressionWords(d: Detail): string | null {
  const kind = SUPPRESSING_KIND[d.status];
  if (!kind) return null;
  if (d.suppression) return 'the address is suppressed for this account';
  if (!d.fire_outcomes[kind].suppresses && d.recipient.email.toLowerCase().endsWith(`@${SIMULATOR_DOMAIN}`)) {
    return 'the address is not suppressed: simulator addresses are never suppressed by a bounce or a spam complaint';
  }
  return 'the address is not suppressed now';
}

/** A spam or unsubscribed copy's row of the message's facts: is its address suppressed now. */
export function SuppressionFact({ d }: { d: Detail }) {
  const words = d.status === 'bounced' ? null : suppressionWords(d);
  if (!words) return null;
  return (
    <>
      <dt>Suppression</dt>
      <dd data-testid="message-suppression">
        {words}
        {d.suppression && (
          <>
            {' · '}
            <Link to="/suppressions">Suppressions</Link>
          </>
        )}
      </dd>
    </>
  );
}
