import { type ReactNode, useState } from 'react';
import { eventFieldsOf } from '../../../src-shared/payload-format';
import { type AttemptRecord, type DeliveryDetail as Detail, MAX_CLOCK_ADVANCE_MS } from '../../../src-shared/schemas/dispatch';
import { isCopyEvent } from '../../../src-shared/schemas/events';
import { control, describeError } from '../../api/clients';
import { Badge, EventTag } from '../../components/Badge';
import { CopyButton } from '../../components/CopyButton';
import { DeliveryBadge, DeliveryNext, useRefreshWhileInFlight } from '../../components/DeliveryState';
import { deliveryState, inFlightNote } from '../../components/delivery-state';
import { BodyView, HeadersTable } from '../../components/JsonView';
import { Link } from '../../components/Link';
import { SendLink } from '../../components/SendLink';
import { formatAbsolute, Time, useEmulatedNow } from '../../components/Time';
import { useAccountName } from '../../stores/account-name';
import { useClockOffset } from '../../stores/clock-store';
import { useDeliveries } from '../../stores/deliveries-store';
import { ConfirmDialog } from '../messages/ConfirmDialog';
import { EditResend } from './EditResend';
import { InboundRuleFact } from './InboundRuleFact';
import { DeliveryPayload, RequestBodyView, ResponseTruncatedNote } from './PayloadView';

/** The recipient an email event's payload is about (`recipient.email`, in either body shape), when it names one. */
function payloadRecipient(payload: unknown): string | null {
  const r = eventFieldsOf(payload).recipient as { email?: unknown } | undefined;
  return typeof r?.email === 'string' ? r.email : null;
}

/**
 * The two clocks of an attempt, labelled where both show: its time is the emulator clock's (which may
 * run ahead or faster); the request's webhook-timestamp is the wall clock's (the receiver checks it
 * against its own), and so is the receiver's Date.
 */
function requestClockNotes(headers: Record<string, string>): Record<string, ReactNode> {
  const seconds = Number(headers['webhook-timestamp']);
  if (!Number.isFinite(seconds)) return {};
  return { 'webhook-timestamp': `${formatAbsolute(seconds * 1000)}, wall clock (the receiver checks it against its own)` };
}

const RESPONSE_CLOCK_NOTES: Record<string, ReactNode> = { date: "wall clock (the receiver's)" };

function Attempt({ a, open }: { a: AttemptRecord; open: boolean }) {
  return (
    <li className={`attempt ${a.outcome}`} data-testid="attempt">
      <details open={open}>
        <summary>
          <span className="dot" />
          <strong>#{a.number}</strong> <Badge value={a.outcome} />{' '}
          {a.response ? <code>HTTP {a.response.status}</code> : a.error ? <code>{a.error.code}</code> : null}{' '}
          <span className="muted small">
            {a.trigger} · <Time emulator={a.started_at} exact /> <span data-testid="attempt-clock">(emulator clock)</span> · {a.duration_ms} ms
          </span>
        </summary>
        {a.error && <p className="error small">{a.error.message}</p>}
        <div className="req-res">
          <section>
            <h4>
              Request <code>{a.request.method}</code> <code className="small">{a.request.url}</code>
            </h4>
            <HeadersTable headers={a.request.headers} notes={requestClockNotes(a.request.headers)} />
            <RequestBodyView request={a.request} />
          </section>
          <section>
            <h4>Response {a.response && <code>HTTP {a.response.status}</code>}</h4>
            {a.response ? (
              <>
                <HeadersTable headers={a.response.headers} notes={RESPONSE_CLOCK_NOTES} />
                <BodyView text={a.response.body} />
                {a.response.truncated && <ResponseTruncatedNote />}
              </>
            ) : (
              <p className="muted small">No response{a.error ? `: ${a.error.message}` : ''}.</p>
            )}
          </section>
        </div>
      </details>
    </li>
  );
}

/** The attempt on the wire, at the top of the attempts: its number, live, until its outcome is in. */
function AttemptInFlight({ number }: { number: number }) {
  return (
    <li className="attempt sending" data-testid="attempt-in-flight">
      <span className="dot" />
      <strong>#{number}</strong> <DeliveryBadge d={{ status: 'sending', attempts: number - 1, next_attempt_at: null }} />{' '}
      <span className="muted small">in flight: the request is on its way or the receiver has not answered yet</span>
    </li>
  );
}

/**
 * "Jump to the next attempt": moves the emulator clock forward to when the waiting attempt is due (never
 * back), so it runs now instead of after the retry delay. The emulator's own now is read first, so the
 * jump is exact whatever the clock's speed. The emulator answers once what fell due is recorded; the
 * views are read again then, and attempts still in flight (a receiver slow to answer) are said.
 */
function JumpToNextAttempt({ at, onDone }: { at: string; onDone: (inFlight: string | null) => void }) {
  const [busy, setBusy] = useState(false);
  // The clock is the whole emulator's, so a jump from one delivery moves every other one too: it is
  // confirmed first, saying so.
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const jump = async () => {
    setBusy(true);
    setError(null);
    try {
      const clock = (await control.getClock()).data;
      const ms = Math.min(MAX_CLOCK_ADVANCE_MS, Math.max(0, Math.ceil(Date.parse(at) - clock.now_ms)));
      let answer: unknown = null;
      if (ms > 0) {
        const c = (await control.setClock({ advance_ms: ms })).data;
        useClockOffset.getState().adopt(c.now_ms, c.speed);
        answer = c;
      }
      onDone(inFlightNote(answer));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={busy}
        onClick={() => setAsking(true)}
        title="Moves the whole emulator clock forward to when this attempt is due"
      >
        {busy ? 'Jumping…' : 'Jump to the next attempt…'}
      </button>
      {asking && (
        <ConfirmDialog
          title="Move the whole emulator clock?"
          confirmLabel="Move the clock"
          busy={busy}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            void jump();
          }}
        >
          <p data-testid="jump-warning">
            The emulator has one clock for every account. Jumping to this attempt (<Time emulator={at} exact />) also runs everything else due by then: every
            account's webhook retries and simulated events (deliveries, bounces, opens…).
          </p>
        </ConfirmDialog>
      )}
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

export function DeliveryDetailPane({ d }: { d: Detail }) {
  const { retry, retrying, notice, refreshDetail, refreshInFlight } = useDeliveries();
  const [jumpNote, setJumpNote] = useState<{ id: string; text: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const state = deliveryState(d, useEmulatedNow());
  const accountName = useAccountName(d.account_id);
  // Its attempt's claim and outcome show as they happen, announced or not.
  useRefreshWhileInFlight([d], refreshDetail);
  const attempts = [...d.attempt_log].reverse();
  return (
    <article className="detail" aria-label={`Delivery ${d.id}`} data-testid="delivery-detail">
      <header className="detail-head">
        <Link to="/deliveries" className="narrow-only small">
          ← All deliveries
        </Link>
        <div className="detail-title">
          <h2>
            <EventTag event={d.event} /> to <code>{d.target.url}</code>
          </h2>
          <DeliveryBadge d={d} testId="delivery-status" />
        </div>
        <dl className="facts compact">
          <dt>Delivery</dt>
          <dd>
            <code>{d.id}</code>{' '}
            {d.webhook_id === d.id ? (
              <span className="muted small">(sent as webhook-id)</span>
            ) : (
              <span className="muted small" data-testid="delivery-webhook-id">
                (a duplicate: sent as webhook-id <Link to={`/deliveries/${d.webhook_id}`}>{d.webhook_id}</Link>, the same event's)
              </span>
            )}
          </dd>
          <dt>Account</dt>
          <dd data-testid="delivery-account">{accountName}</dd>
          <dt>Category</dt>
          <dd>{d.category}</dd>
          {d.ref_id && d.category === 'EMAIL_EVENT' && isCopyEvent(d.event) && (
            <>
              <dt>Message</dt>
              <dd data-testid="delivery-message">
                <SendLink refId={d.ref_id} recipient={payloadRecipient(d.payload)} />
                {payloadRecipient(d.payload) && <span className="muted small"> · to {payloadRecipient(d.payload)}</span>}
              </dd>
            </>
          )}
          {d.ref_id && d.category === 'INBOUND' && <InboundRuleFact refId={d.ref_id} />}
          <dt>Attempts</dt>
          <dd data-testid="delivery-attempts">{d.attempts}</dd>
          <dt>Created</dt>
          <dd>
            <Time emulator={d.created_at} exact />
          </dd>
          {state.inFlight && (
            <>
              <dt>In flight</dt>
              <dd>
                <DeliveryNext d={d} testId="delivery-in-flight" />
              </dd>
            </>
          )}
          {state.next && (
            <>
              <dt>Next attempt</dt>
              <dd>
                <DeliveryNext d={d} exact testId="delivery-next-attempt" />
              </dd>
            </>
          )}
          {d.last_error && (
            <>
              <dt>Last error</dt>
              <dd className="error">{d.last_error}</dd>
            </>
          )}
        </dl>
        <div className="toolbar">
          <button type="button" className="button primary" disabled={retrying || d.status === 'sending'} onClick={() => void retry(d.id)}>
            {retrying ? 'Sending…' : 'Retry now'}
          </button>
          {state.next?.kind === 'scheduled' && (
            <JumpToNextAttempt
              at={state.next.at}
              onDone={(inFlight) => {
                setJumpNote(inFlight ? { id: d.id, text: inFlight } : null);
                void refreshDetail();
                void refreshInFlight();
              }}
            />
          )}
          {jumpNote?.id === d.id && state.inFlight && (
            <span className="muted small" data-testid="jump-in-flight">
              {jumpNote.text}
            </span>
          )}
          {/* Signed by the emulator at the moment it is copied: a fresh webhook-timestamp a receiver's 5-minute tolerance accepts. */}
          <CopyButton text={async () => (await control.signDeliveryRequest(d.id)).data.curl} label="Copy as curl" />
          {/* A payload shown in part cannot be edited here (the download has it whole). */}
          {!d.payload_truncated && (
            <button type="button" className="button" onClick={() => setEditing(editing === d.id ? null : d.id)}>
              Edit and resend…
            </button>
          )}
          {notice && (
            <span className={`${notice.ok ? 'notice' : 'error'} small`} data-testid="retry-notice" data-outcome={notice.ok ? 'succeeded' : 'failed'}>
              {notice.text}
            </span>
          )}
        </div>
        {editing === d.id && <EditResend d={d} onClose={() => setEditing(null)} />}
      </header>
      <div className="scroll-body">
        <h3>Attempts</h3>
        {attempts.length === 0 && !state.inFlight ? (
          <p className="muted">No attempt yet{d.next_attempt_at ? '; the first is due at the time above' : ''}.</p>
        ) : (
          <ol className="timeline attempts">
            {state.inFlight && state.attempt !== null && <AttemptInFlight number={state.attempt} />}
            {attempts.map((a, i) => (
              <Attempt key={a.number} a={a} open={i === 0} />
            ))}
          </ol>
        )}
        <h3>Payload</h3>
        <DeliveryPayload d={d} />
      </div>
    </article>
  );
}
