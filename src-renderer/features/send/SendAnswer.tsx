import { useEffect, useRef, useState } from 'react';
import type { MessageSummary } from '../../../src-shared/schemas/messages';
import { control, describeError } from '../../api/clients';
import { live } from '../../api/live';
import { Badge } from '../../components/Badge';
import { CopyButton } from '../../components/CopyButton';
import { JsonView } from '../../components/JsonView';
import { Link } from '../../components/Link';
import { sendPath } from '../../components/SendLink';
import { WouldRefuse } from '../../components/WouldRefuse';
import { IgnoredFields } from './IgnoredFields';

/** The copies the answer lists; the rest are one link away (the list filtered to the send). */
const SHOWN = 100;

/**
 * The send's answer: its one ref_id, and each recipient's copy of it (stored before the API answers),
 * each linking to the copy, what the API ignored in the request (`X-Mailyard-Ignored`) and what the
 * real service would have refused (`X-Mailyard-Warning`).
 */
export function SendAnswer({ refId, body, ignored, warnings }: { refId: string; body: unknown; ignored?: readonly string[]; warnings?: readonly string[] }) {
  const [copies, setCopies] = useState<MessageSummary[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    let gone = false;
    setCopies(null);
    setError(null);
    const load = () =>
      control.listMessages({ q: refId, limit: SHOWN }).then(
        (res) => {
          if (gone) return;
          // Oldest first: the order of the request's to, cc and bcc.
          setCopies(res.data.messages.filter((m) => m.ref_id === refId).reverse());
          setMore(res.data.next_cursor !== null);
        },
        (err: unknown) => !gone && setError(describeError(err)),
      );
    void load();
    // Each copy's status follows the live stream, as the Messages list does (queued -> delivered, bounced...).
    const offUpdated = live.on('message.updated', (u) => {
      if (u.ref_id !== refId) return;
      setCopies((cs) => (cs === null ? null : cs.map((m) => (m.id === u.message_id ? { ...m, status: u.status } : m))));
      // Read again too: an update may come before the first answer, and a failure's words come with the summary.
      void load();
    });
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      gone = true;
      offUpdated();
      offReconnect();
    };
  }, [refId]);
  // A new answer is brought into view and focused: below a long form it would start below the fold.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new answer (refId) is what it scrolls to
  useEffect(() => {
    section.current?.scrollIntoView({ block: 'start' });
    section.current?.focus({ preventScroll: true });
  }, [refId]);
  return (
    <section className="card" aria-labelledby="answer-title" data-testid="send-answer" ref={section} tabIndex={-1}>
      <h2 id="answer-title">API answer</h2>
      <p>
        ref_id <code data-testid="send-ref-id">{refId}</code> <CopyButton text={refId} label="Copy ref_id" />{' '}
        <span className="muted small">one for the whole send: every recipient's log entry and event carries it</span>
      </p>
      <IgnoredFields paths={ignored} />
      <WouldRefuse warnings={warnings} taken="sent it" what="this request" testId="send-warnings" />
      {error && <p className="error small">{error}</p>}
      {copies && (
        <>
          <h3 className="small">{copies.length === 1 ? '1 copy' : `${more ? `${copies.length}+` : copies.length} copies`}, one per recipient</h3>
          <ul className="refs" data-testid="send-copies">
            {copies.map((m) => (
              <li key={m.id}>
                <span className="badge">{m.recipient_type}</span> <Link to={`/messages/${m.id}`}>{m.recipient.email}</Link>{' '}
                <span className="muted small">{m.id}</span> <Badge value={m.status} />
                {m.failed_reason && <span className="muted small"> {m.failed_reason}</span>}
              </li>
            ))}
          </ul>
          <Link to={sendPath(refId)} className="small">
            {more ? 'Every copy of this send in the list' : 'Show them in the list'}
          </Link>
        </>
      )}
      <JsonView value={body} />
    </section>
  );
}
