import { useCallback, useEffect, useState } from 'react';
import type { ImapMessageSummary } from '../../../src-shared/schemas/mailers';
import { control, describeError } from '../../api/clients';
import { live } from '../../api/live';
import { Link } from '../../components/Link';
import { SendLink } from '../../components/SendLink';
import { formatSize } from '../../components/size';
import { Time } from '../../components/Time';

const PAGE = 50;

interface Loaded {
  messages: ImapMessageSummary[];
  total: number;
  next: string | null;
}

/**
 * The messages an IMAP configuration took from its inbox, newest first: who sent them, their post to
 * the configuration's webhook, the Mailyard message a bounce report is about, and the raw source.
 * New ones arrive on the live stream.
 */
export function ImapMessages({ mailerId }: { mailerId: string }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const { data } = await control.listImapMessages(mailerId, { limit: PAGE });
      setLoaded({ messages: data.messages, total: data.total, next: data.next_cursor });
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  }, [mailerId]);

  const more = async (cursor: string) => {
    setBusy(true);
    try {
      const { data } = await control.listImapMessages(mailerId, { limit: PAGE, cursor });
      setLoaded((prev) => prev && { messages: [...prev.messages, ...data.messages], total: data.total, next: data.next_cursor });
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void load();
    const off = live.on('imap.message', (m) => {
      if (m.mailer_id !== mailerId) return;
      setLoaded((prev) =>
        prev && !prev.messages.some((x) => x.ref_id === m.ref_id) ? { ...prev, messages: [m, ...prev.messages], total: prev.total + 1 } : prev,
      );
    });
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      off();
      offReconnect();
    };
  }, [load, mailerId]);

  if (error) return <p className="error small">{error}</p>;
  if (!loaded) return <p className="muted small">Loading…</p>;
  if (loaded.total === 0)
    return <p className="muted small">No messages taken from this inbox yet. Mail already in it when the watch started is left alone; new mail shows here.</p>;
  return (
    <div className="imap-messages">
      <p className="muted small" data-testid="imap-count">
        {loaded.total === 1 ? '1 message' : `${loaded.total} messages`} taken from the inbox
      </p>
      <table className="table" aria-label="Messages taken from the inbox">
        <thead>
          <tr>
            <th>Received</th>
            <th>From</th>
            <th>Subject</th>
            <th>Webhook post</th>
            <th>Source</th>
          </tr>
        </thead>
        <tbody>
          {loaded.messages.map((m) => (
            <tr key={m.ref_id} data-testid={`imap-message-${m.ref_id}`}>
              <td className="small">
                <Time emulator={m.created_at} />
              </td>
              <td className="small">{m.from_email || <span className="muted">(no sender)</span>}</td>
              <td>
                {m.subject || <span className="muted">(no subject)</span>}
                {m.bounce_ref_id && (
                  <div className="small">
                    <span className="pill tone-bad">bounce report</span> about <SendLink refId={m.bounce_ref_id} />
                  </div>
                )}
                {m.problem && (
                  <div className="small" data-testid="imap-problem">
                    <span className="pill tone-warn">not taken whole</span> {m.problem}
                  </div>
                )}
              </td>
              <td className="small">{m.delivery_id ? <Link to={`/deliveries/${m.delivery_id}`}>delivery</Link> : <span className="muted">no webhook</span>}</td>
              <td className="small">
                <a href={`/emulator/imap-messages/${encodeURIComponent(m.ref_id)}/raw`} download={`${m.ref_id}.eml`}>
                  .eml
                </a>{' '}
                <span className="muted">{formatSize(m.size)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {loaded.next && (
        <button type="button" className="button small" disabled={busy} onClick={() => void more(loaded.next!)}>
          Show older
        </button>
      )}
    </div>
  );
}
