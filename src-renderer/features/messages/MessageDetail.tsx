import { useEffect, useState } from 'react';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../../src-shared/events';
import type { FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import type { z } from 'zod';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { Badge, EventTag } from '../../components/Badge';
import { CopyButton } from '../../components/CopyButton';
import { HeadersTable } from '../../components/JsonView';
import { Link } from '../../components/Link';
import { formatSize } from '../../components/size';
import { Time } from '../../components/Time';
import { navigate } from '../../router';
import { useMessages } from '../../stores/messages-store';
import { ReleaseMessage } from './ReleaseMessage';
import { sendPath } from './SendLink';

type Tab = 'preview' | 'text' | 'headers' | 'raw' | 'attachments' | 'events';

/**
 * The HTML part, served by the emulator with a script-free CSP, in a sandboxed frame without
 * allow-scripts or allow-same-origin: nothing in a captured message runs, whatever it carries.
 */
function Preview({ d }: { d: Detail }) {
  const [width, setWidth] = useState<'desktop' | 'mobile'>('desktop');
  if (d.html === null) return <p className="muted pad">This message has no HTML part. See the Text tab.</p>;
  return (
    <div className="preview">
      <div className="segmented" role="group" aria-label="Preview width">
        {(['desktop', 'mobile'] as const).map((w) => (
          <button key={w} type="button" className={`seg${width === w ? ' on' : ''}`} aria-pressed={width === w} onClick={() => setWidth(w)}>
            {w === 'desktop' ? 'Desktop' : 'Mobile (375 px)'}
          </button>
        ))}
      </div>
      <div className="frame-wrap">
        <iframe
          key={d.id}
          title="HTML preview"
          className={`html-frame ${width}`}
          sandbox="allow-popups allow-popups-to-escape-sandbox"
          referrerPolicy="no-referrer"
          src={`/emulator/messages/${encodeURIComponent(d.id)}/html`}
        />
      </div>
    </div>
  );
}

function Raw({ id }: { id: string }) {
  const [raw, setRaw] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    fetch(`/emulator/messages/${encodeURIComponent(id)}/raw`)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((t) => !gone && setRaw(t), (e: Error) => !gone && setError(e.message));
    return () => {
      gone = true;
    };
  }, [id]);
  if (error) return <p className="error pad">{error}</p>;
  if (raw === null) return <p className="muted pad">Loading…</p>;
  return (
    <>
      <div className="toolbar">
        <a className="button" href={`/emulator/messages/${encodeURIComponent(id)}/raw`} download={`${id}.eml`}>
          Download .eml
        </a>
        <CopyButton text={raw} label="Copy source" />
      </div>
      <pre className="snippet raw" data-testid="raw-source">
        {raw.length > 500_000 ? `${raw.slice(0, 500_000)}\n… (truncated here; download the .eml for all of it)` : raw}
      </pre>
    </>
  );
}

function Events({ d }: { d: Detail }) {
  const deliveries = useMessages((s) => s.deliveries);
  const byId = new Map(deliveries.map((x) => [x.id, x]));
  if (d.events.length === 0) {
    return <p className="muted pad">No events yet. The simulation schedules them on the emulator clock; you can also fire one above.</p>;
  }
  return (
    <ol className="timeline" data-testid="message-events">
      {d.events.map((e, i) => {
        const del = e.delivery_id ? byId.get(e.delivery_id) : undefined;
        return (
          <li key={`${e.timestamp}-${i}`}>
            <span className="dot" />
            <EventTag event={e.event} /> <Time iso={e.timestamp} exact />
            {e.delivery_id ? (
              <span className="small">
                {' · webhook '}
                <Link to={`/deliveries/${e.delivery_id}`}>{e.delivery_id}</Link> {del && <Badge value={del.status} />}
                {del && <span className="muted"> {del.attempts} attempt{del.attempts === 1 ? '' : 's'}</span>}
              </span>
            ) : (
              <span className="muted small"> · not sent to a webhook</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function FireFromMessage({ d }: { d: Detail }) {
  const [kind, setKind] = useState<EmailEventKind>('bounce');
  const [result, setResult] = useState<z.output<typeof FireEventResult> | null>(null);
  const { busy, error, run, clearError } = useRun();
  const refresh = useMessages((s) => s.refreshDetail);
  useEffect(() => {
    setResult(null);
    clearError();
  }, [d.id, clearError]);
  // The send's ref_id and this copy's recipient name this copy.
  const fire = () =>
    run(async () => {
      const res = await control.fireEvent({ event: kind, ref_id: d.ref_id, recipient: d.recipient.email });
      setResult(res.data);
      await refresh();
    });
  return (
    <div className="fire-inline">
      <label>
        Fire{' '}
        <select className="input" aria-label="Event to fire" value={kind} onChange={(e) => setKind(e.target.value as EmailEventKind)}>
          {EMAIL_EVENT_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button primary" disabled={busy} onClick={() => void fire()}>
        Fire event
      </button>
      <Link to={`/events?ref_id=${encodeURIComponent(d.ref_id)}&recipient=${encodeURIComponent(d.recipient.email)}`} className="small">
        with field overrides…
      </Link>
      {result && (
        <span className={result.sent ? 'notice small' : 'warn small'} data-testid="fire-result">
          {result.sent ? (
            <>
              {String(result.payload.event)} sent: delivery <Link to={`/deliveries/${result.delivery_id}`}>{result.delivery_id}</Link>
            </>
          ) : (
            `${String(result.payload.event)} recorded, not sent: ${result.reason}`
          )}
        </span>
      )}
      {error && <span className="error small">{error}</span>}
    </div>
  );
}

/** The send's other recipients: each one's own copy, with its status. */
function Siblings({ d }: { d: Detail }) {
  const siblings = useMessages((s) => s.siblings);
  const more = useMessages((s) => s.moreSiblings);
  if (siblings.length === 0) return null;
  return (
    <details className="siblings small" data-testid="message-siblings" open={siblings.length <= 5}>
      <summary>
        Other recipients of this send ({more ? `${siblings.length}+` : siblings.length})
      </summary>
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

export function MessageDetailPane({ d }: { d: Detail }) {
  const [tab, setTab] = useState<Tab>('preview');
  const remove = useMessages((s) => s.remove);
  const tabs: Array<[Tab, string]> = [
    ['preview', 'Preview'],
    ['text', 'Text'],
    ['headers', `Headers (${d.headers.length})`],
    ['raw', 'Raw'],
    ['attachments', `Attachments (${d.attachments.length})`],
    ['events', `Events (${d.events.length})`],
  ];
  return (
    <article className="detail" aria-label={`Message ${d.subject}`} data-testid="message-detail">
      <header className="detail-head">
        <Link to="/messages" className="narrow-only small">
          ← All messages
        </Link>
        <div className="detail-title">
          <h2>{d.subject || <span className="muted">(no subject)</span>}</h2>
          <Badge value={d.status} testId="message-status" />
        </div>
        <dl className="facts compact">
          <dt>From</dt>
          <dd>
            {d.from.name ? `${d.from.name} <${d.from.email}>` : d.from.email}
          </dd>
          <dt>To</dt>
          <dd>
            {d.recipient.name ? `${d.recipient.name} <${d.recipient.email}>` : d.recipient.email} <span className="badge">{d.recipient_type}</span>
          </dd>
          <dt>Sent</dt>
          <dd>
            <Time iso={d.created_at} exact /> <span className="badge">via {d.source.toUpperCase()}</span> <span className="muted">{formatSize(d.size)}</span>
          </dd>
          {d.campaign_id && (
            <>
              <dt>Campaign</dt>
              <dd>{d.campaign_id}</dd>
            </>
          )}
          {d.relay && (
            <>
              <dt>Relay</dt>
              <dd data-testid="message-relay">
                {d.relay.attempts === 0 ? (
                  'waiting for its relay through the SMTP mailer'
                ) : (
                  <>
                    refused for now {d.relay.attempts === 1 ? 'once' : `${d.relay.attempts} times`}; next attempt <Time iso={d.relay.next_attempt_at} />
                    {d.relay.last_reply && <div className="muted small">{d.relay.last_reply}</div>}
                  </>
                )}
              </dd>
            </>
          )}
          {d.failed_reason && (
            <>
              <dt>Failed</dt>
              <dd className="error" data-testid="message-failed-reason">
                {d.failed_reason}
              </dd>
            </>
          )}
          <dt>ref_id</dt>
          <dd>
            <code data-testid="message-ref-id">{d.ref_id}</code> <CopyButton text={d.ref_id} label="Copy ref_id" />{' '}
            <span className="muted small">the send's, shared by each recipient's copy</span>
          </dd>
          <dt>Copy id</dt>
          <dd>
            <code data-testid="message-id">{d.id}</code> <CopyButton text={d.id} label="Copy id" />
          </dd>
        </dl>
        <Siblings d={d} />
        <div className="toolbar">
          <FireFromMessage d={d} />
          <ReleaseMessage d={d} />
          <span className="spacer" />
          <button
            type="button"
            className="button danger"
            onClick={() => {
              if (window.confirm('Delete this message?')) void remove(d.id).then(() => navigate('/messages', true));
            }}
          >
            Delete
          </button>
        </div>
      </header>
      <div className="tabs" role="tablist" aria-label="Message parts">
        {tabs.map(([id, label]) => (
          <button key={id} role="tab" type="button" aria-selected={tab === id} className={`tab${tab === id ? ' on' : ''}`} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
      </div>
      <div className="tab-body" role="tabpanel">
        {tab === 'preview' && <Preview d={d} />}
        {tab === 'text' && (d.text ? <pre className="snippet wrap">{d.text}</pre> : <p className="muted pad">This message has no text part.</p>)}
        {tab === 'headers' && <HeadersTable headers={d.headers} />}
        {tab === 'raw' && <Raw id={d.id} />}
        {tab === 'attachments' &&
          (d.attachments.length === 0 ? (
            <p className="muted pad">No attachments.</p>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  <th>File</th>
                  <th>Type</th>
                  <th>Size</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {d.attachments.map((a) => (
                  <tr key={a.index}>
                    <td>
                      {a.filename} {a.disposition === 'inline' && <span className="badge">inline{a.content_id ? ` cid:${a.content_id}` : ''}</span>}
                    </td>
                    <td>
                      <code>{a.content_type}</code>
                    </td>
                    <td>{formatSize(a.size)}</td>
                    <td>
                      <a className="button" href={`/emulator/messages/${encodeURIComponent(d.id)}/attachments/${a.index}`} download={a.filename}>
                        Download
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        {tab === 'events' && <Events d={d} />}
      </div>
    </article>
  );
}
