import { INBOUND_RULES, type InboundMessageRecord } from '../../../src-shared/schemas/inbound';

/**
 * The inbound guide's rule that accepted or refused an inbound email (docs/inbound.md), by the guide's
 * name and rank, and what it decided.
 */
export function InboundRule({ m }: { m: InboundMessageRecord }) {
  return (
    <span data-testid="inbound-rule">
      <span className={`pill tone-${m.accepted ? 'ok' : 'bad'}`}>{m.accepted ? 'accepted' : 'refused'}</span>{' '}
      {m.rule === null ? (
        <span className="muted">by a rule Mailyard did not record then</span>
      ) : (
        <>
          by <b>{m.rule}</b> <span className="muted small">(the inbound guide's rule {INBOUND_RULES.indexOf(m.rule) + 1} of 4)</span>
        </>
      )}
    </span>
  );
}
