import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { Badge } from '../../components/Badge';
import { Link } from '../../components/Link';
import { sendPath } from '../../components/SendLink';
import { useMessages } from '../../stores/messages-store';

/** The send's other recipients: each one's own copy, with its status. */
export function Siblings({ d }: { d: Detail }) {
  const siblings = useMessages((s) => s.siblings);
  const more = useMessages((s) => s.moreSiblings);
  if (siblings.length === 0) return null;
  return (
    <details className="siblings small" data-testid="message-siblings" open={siblings.length <= 5}>
      <summary>Other recipients of this send ({more ? `${siblings.length}+` : siblings.length})</summary>
      <ul className="refs">
        {siblings.map((m) => (
          <li key={m.id}>
            <span className="badge">{m.recipient_type}</span> <Link to={`/messages/${m.id}`}>{m.recipient.email}</Link> <Badge value={m.status} />
            {m.failed_reason && <span className="muted"> {m.failed_reason}</span>}
          </li>
        ))}
      </ul>
      <Link to={sendPath(d.ref_id)}>Every copy of this send in the list</Link>
    </details>
  );
}
