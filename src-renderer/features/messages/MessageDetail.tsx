import { useState } from 'react';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { StatusBadge } from '../../components/Badge';
import { CopyButton } from '../../components/CopyButton';
import { HeadersTable } from '../../components/JsonView';
import { Link } from '../../components/Link';
import { formatSize } from '../../components/size';
import { Tabs } from '../../components/Tabs';
import { Time } from '../../components/Time';
import { WouldRefuse } from '../../components/WouldRefuse';
import { navigate } from '../../router';
import { useAccountName } from '../../stores/account-name';
import { useMessages } from '../../stores/messages-store';
import { BounceFacts } from './BounceFacts';
import { Checks, HtmlSource } from './MessageChecks';
import { Events, FireFromMessage } from './MessageEvents';
import { ReadToggle, TagEditor } from './MessageFlags';
import { Attachments, Preview, Raw } from './MessageParts';
import { Siblings } from './MessageSiblings';
import { ReleaseMessage } from './ReleaseMessage';
import { SimulateTracking } from './SimulateTracking';
import { SuppressionFact } from './SuppressionFact';

type Tab = 'preview' | 'source' | 'text' | 'headers' | 'raw' | 'attachments' | 'checks' | 'events';

/** One captured copy: what it is (from, to, status, ids), what can be done with it, and its parts in tabs. */
export function MessageDetailPane({ d }: { d: Detail }) {
  const [tab, setTab] = useState<Tab>('preview');
  const remove = useMessages((s) => s.remove);
  const accountName = useAccountName(d.account_id);
  const tabs: Array<[Tab, string]> = [
    ['preview', 'Preview'],
    ['source', 'HTML source'],
    ['text', 'Text'],
    ['headers', `Headers (${d.headers.length})`],
    ['raw', 'Raw'],
    ['attachments', `Attachments (${d.attachments.length})`],
    ['checks', 'Checks'],
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
          <StatusBadge status={d.status} failedReason={d.failed_reason} testId="message-status" />
          {/* Tags sit on the title's line: the head stays as short as before, and the preview keeps its room. */}
          <TagEditor d={d} />
          {/* Stored with the send: every copy of it says the same, on the title's line, opened over the head. */}
          <WouldRefuse warnings={d.warnings} taken="sent it" what="this send" testId="message-warnings" folded />
          <span className="spacer" />
          <ReadToggle d={d} />
          <button
            type="button"
            className="button danger"
            onClick={() => {
              // Back to the list as it was: its search and filters (the URL's) are kept.
              if (window.confirm('Delete this message?')) void remove(d.id).then(() => navigate(`/messages${window.location.search}`, true));
            }}
          >
            Delete
          </button>
        </div>
        <dl className="facts compact">
          <dt>From</dt>
          <dd>{d.from.name ? `${d.from.name} <${d.from.email}>` : d.from.email}</dd>
          <dt>To</dt>
          <dd>
            {d.recipient.name ? `${d.recipient.name} <${d.recipient.email}>` : d.recipient.email} <span className="badge">{d.recipient_type}</span>
          </dd>
          <dt>Account</dt>
          <dd data-testid="message-account">{accountName}</dd>
          <dt>Sent</dt>
          <dd>
            <Time emulator={d.created_at} exact /> <span className="badge">via {d.source.toUpperCase()}</span>{' '}
            <span className="muted">{formatSize(d.size)}</span>
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
                    refused for now {d.relay.attempts === 1 ? 'once' : `${d.relay.attempts} times`}; next attempt{' '}
                    <Time emulator={d.relay.next_attempt_at} future />
                    {d.relay.last_reply && <div className="muted small">{d.relay.last_reply}</div>}
                  </>
                )}
              </dd>
            </>
          )}
          <BounceFacts d={d} />
          <SuppressionFact d={d} />
          {d.failed_reason && d.status !== 'bounced' && (
            <>
              <dt>Failed</dt>
              <dd className="error" data-testid="message-failed-reason">
                {d.failed_reason}
              </dd>
            </>
          )}
          <dt title="the send's, shared by each recipient's copy">ref_id</dt>
          <dd>
            <code data-testid="message-ref-id" title="the send's, shared by each recipient's copy">
              {d.ref_id}
            </code>{' '}
            <CopyButton text={d.ref_id} label="Copy ref_id" />
          </dd>
          <dt>Copy id</dt>
          <dd>
            <code data-testid="message-id">{d.id}</code> <CopyButton text={d.id} label="Copy id" />
          </dd>
        </dl>
        <Siblings d={d} />
        {/* The actions flow as one wrapping row: the head stays short and the preview keeps the room. */}
        <div className="toolbar detail-actions">
          <FireFromMessage d={d} />
          <ReleaseMessage d={d} />
          <SimulateTracking d={d} />
        </div>
      </header>
      <Tabs tabs={tabs.map(([id, label]) => ({ id, label }))} selected={tab} onSelect={setTab} label="Message parts">
        {tab === 'preview' && <Preview d={d} />}
        {tab === 'text' && (d.text ? <pre className="snippet wrap">{d.text}</pre> : <p className="muted pad">This message has no text part.</p>)}
        {tab === 'headers' && <HeadersTable headers={d.headers} />}
        {tab === 'raw' && <Raw id={d.id} />}
        {tab === 'attachments' && <Attachments d={d} />}
        {tab === 'checks' && <Checks d={d} />}
        {tab === 'source' && <HtmlSource d={d} />}
        {tab === 'events' && <Events d={d} />}
      </Tabs>
    </article>
  );
}
