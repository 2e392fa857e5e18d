import { useCallback, useEffect, useRef, useState } from 'react';
import { eventFieldsOf } from '../../../src-shared/payload-format';
import type { Catcher, CatcherRequest } from '../../../src-shared/schemas/catchers';
import { control, describeError, serviceAs } from '../../api/clients';
import { live } from '../../api/live';
import { useChosenAccount } from '../../components/AccountSelect';
import { CopyButton } from '../../components/CopyButton';
import { BodyView, HeadersTable } from '../../components/JsonView';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { useArrivals } from '../../components/VirtualList';
import { idAfter, navigate, usePath } from '../../router';
import { useOverview } from '../../stores/overview-store';
import { answeredWords, choiceOf, describeMode, MODE_LABELS, type ModeChoice, modeOf } from './modes';
import './catchers.css';

const SIGNATURE_WORDS: Record<CatcherRequest['signature'], string> = {
  valid: 'signature valid',
  invalid: 'signature INVALID',
  stale: 'signature valid, timestamp stale',
  unsigned: 'unsigned',
  no_secret: 'signed, account has no secret',
};

/** A simulator address that gets a delivery, an open and a click. */
export const DEMO_RECIPIENT = 'click@sim.mailyard.test';

/** Sends the demo's test email as the account with `apiKey`; answers its ref_id. */
export async function sendTestEmail(apiKey: string): Promise<string> {
  const res = await serviceAs(apiKey).sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: DEMO_RECIPIENT }],
    subject: 'Hello from Mailyard',
    content: [{ type: 'text/html', value: '<p>Hello <a href="https://example.com">there</a></p>' }],
  });
  return res.ref_id;
}

/** Creates a catcher of the account and makes it that account's webhook for every event kind: the demo's one step. */
export async function catchWebhooksHere(accountId: string): Promise<Catcher> {
  const catcher = (await control.createCatcher({ account_id: accountId })).data;
  await control.pointWebhookAtCatcher(catcher.id);
  return catcher;
}

function ModeControl({ catcher, onChanged }: { catcher: Catcher; onChanged: (c: Catcher) => void }) {
  const [choice, setChoice] = useState<ModeChoice>(choiceOf(catcher.mode));
  const [status, setStatus] = useState(catcher.mode.status === 200 ? 503 : catcher.mode.status);
  const [percent, setPercent] = useState(catcher.mode.fail_percent || 30);
  const [delayMs, setDelayMs] = useState(catcher.mode.delay_ms || 2000);
  const [headerName, setHeaderName] = useState(catcher.mode.require_header?.name ?? 'X-Webhook-Secret');
  const [headerValue, setHeaderValue] = useState(catcher.mode.require_header?.value ?? '');
  const [error, setError] = useState<string | null>(null);
  const apply = async (next: ModeChoice) => {
    setError(null);
    try {
      onChanged((await control.updateCatcher(catcher.id, { mode: modeOf(next, { status, percent, delayMs, headerName, headerValue }) as never })).data);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <form
      className="catcher-mode"
      aria-label="How it answers"
      onSubmit={(e) => {
        e.preventDefault();
        void apply(choice);
      }}
    >
      <label>
        Answer{' '}
        <select
          value={choice}
          data-testid="catcher-mode"
          onChange={(e) => {
            const next = e.target.value as ModeChoice;
            setChoice(next);
            // Choices without fields apply at once; the others on Apply.
            if (next === 'ok' || next === 'fail' || next === 'hang') void apply(next);
          }}
        >
          {(Object.keys(MODE_LABELS) as ModeChoice[]).map((c) => (
            <option key={c} value={c}>
              {MODE_LABELS[c]}
            </option>
          ))}
        </select>
      </label>
      {choice === 'status' && (
        <label>
          Status <input type="number" min={200} max={599} value={status} onChange={(e) => setStatus(Number(e.target.value))} />
        </label>
      )}
      {choice === 'share' && (
        <label>
          Failing (500) <input type="number" min={0} max={100} value={percent} onChange={(e) => setPercent(Number(e.target.value))} /> %
        </label>
      )}
      {choice === 'delay' && (
        <label>
          Delay <input type="number" min={0} max={120000} step={100} value={delayMs} onChange={(e) => setDelayMs(Number(e.target.value))} /> ms
        </label>
      )}
      {choice === 'header' && (
        <>
          <label>
            Header <input value={headerName} onChange={(e) => setHeaderName(e.target.value)} />
          </label>
          <label>
            Value <input value={headerValue} onChange={(e) => setHeaderValue(e.target.value)} />
          </label>
        </>
      )}
      {!(choice === 'ok' || choice === 'fail' || choice === 'hang') && (
        <button className="button" type="submit">
          Apply
        </button>
      )}
      <span className="muted" data-testid="catcher-mode-now">
        now: {describeMode(catcher.mode)}
      </span>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/**
 * The `event` a webhook body names and the recipient of the email it is about (the spec's shape or the
 * newer guide's), when it is JSON that names them.
 */
function eventOf(body: string): { event: string | null; recipient: string | null } {
  try {
    const json = JSON.parse(body) as { mailer_events?: unknown } | null;
    // The guide's shape holds one event; a list of them is read by its first.
    const fields = eventFieldsOf(Array.isArray(json?.mailer_events) ? { mailer_events: json.mailer_events[0] } : json);
    const { event } = fields;
    const recipient = (fields.recipient as { email?: unknown } | undefined)?.email;
    return { event: typeof event === 'string' ? event : null, recipient: typeof recipient === 'string' ? recipient : null };
  } catch {
    return { event: null, recipient: null };
  }
}

function RequestRow({ r, arrived }: { r: CatcherRequest; arrived: boolean }) {
  const [open, setOpen] = useState(false);
  const { event, recipient } = eventOf(r.body);
  const ok = r.answered_status >= 200 && r.answered_status < 300;
  return (
    <li className={`caught${arrived ? ' arrived' : ''}`} data-testid="caught-request">
      <button type="button" className="caught-head" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="muted">#{r.number}</span> <strong>{r.method}</strong> {event && <span data-testid="caught-event">{event}</span>}{' '}
        {recipient && (
          <span className="caught-recipient" data-testid="caught-recipient" title="The recipient of the email this event is about">
            {recipient}
          </span>
        )}{' '}
        <span className={`answered ${ok ? 'ok' : 'bad'}`} data-testid="caught-status">
          {answeredWords(r)}
        </span>{' '}
        <span className={`sig sig-${r.signature}`} data-testid="caught-signature">
          {SIGNATURE_WORDS[r.signature]}
        </span>{' '}
        {r.attempt !== null && <span data-testid="caught-attempt">{r.attempt === 1 ? 'first attempt' : `attempt ${r.attempt} (retry)`}</span>}
        {r.attempt === null && r.delivery_id && <span data-testid="caught-attempt">a copy of its request, not an attempt</span>}{' '}
        <span className="muted">
          <Time wall={r.received_at} />
        </span>
      </button>
      {r.delivery_id && (
        <span className="caught-delivery">
          delivery <Link to={`/deliveries/${r.delivery_id}`}>{r.delivery_id}</Link>
        </span>
      )}
      {open && (
        <div className="caught-detail">
          <p className="muted">
            <code>{r.path}</code> · {r.body_bytes} bytes{r.body_truncated ? ' (first 64 KiB kept)' : ''} · emulator clock{' '}
            <Time emulator={r.emulator_at} exact />
          </p>
          <HeadersTable headers={r.headers} />
          <BodyView text={r.body} />
        </div>
      )}
    </li>
  );
}

function CatcherDetail({ id, onChanged }: { id: string; onChanged: () => void }) {
  const [catcher, setCatcher] = useState<Catcher | null>(null);
  const [requests, setRequests] = useState<CatcherRequest[]>([]);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The catcher's own account (not necessarily the one chosen in the header: a link may open another's).
  const account = useOverview((s) => s.accounts.find((a) => a.id === catcher?.account_id));
  const arrived = useArrivals();
  const markArrived = arrived.mark;
  useEffect(() => {
    let gone = false;
    setCatcher(null);
    setRequests([]);
    const load = () =>
      Promise.all([control.getCatcher(id), control.listCatcherRequests(id, { limit: 100 })]).then(
        ([c, page]) => {
          if (gone) return;
          setCatcher(c.data);
          // Live ones that came while loading stay; the list's own are merged in, newest first.
          setRequests((shown) =>
            [...shown, ...page.data.requests.filter((r) => !shown.some((l) => l.id === r.id))]
              .sort((a, b) => (a.received_at < b.received_at ? 1 : a.received_at > b.received_at ? -1 : 0))
              .slice(0, 200),
          );
        },
        (err) => !gone && setError(describeError(err)),
      );
    void load();
    const off = live.on('catcher.request', (r) => {
      if (r.catcher_id !== id) return;
      setRequests((list) => [r, ...list.filter((l) => l.id !== r.id)].slice(0, 200));
      markArrived([r.id]);
    });
    // A request that came before the live stream was up (or while it was down) was not announced here.
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      gone = true;
      off();
      offReconnect();
    };
  }, [id, markArrived]);
  if (error) return <p className="error">{error}</p>;
  if (!catcher) return <p className="muted">Loading…</p>;
  const makeWebhook = async () => {
    try {
      const used = (await control.pointWebhookAtCatcher(id)).data;
      const whose = `${account?.name ?? used.account_id}'s`;
      setNote(used.created ? `Registered as ${whose} webhook for every event kind.` : `${whose} webhook now points here, every event kind on.`);
    } catch (err) {
      setNote(describeError(err));
    }
  };
  const sendEmail = async () => {
    if (!account) return;
    try {
      setNote(`Test email sent to ${DEMO_RECIPIENT}: ref_id ${await sendTestEmail(account.api_key)}.`);
    } catch (err) {
      setNote(describeError(err));
    }
  };
  const remove = async () => {
    await control.deleteCatcher(id);
    onChanged();
    navigate('/catchers');
  };
  return (
    <section className="card catcher-detail" aria-labelledby="catcher-name">
      <div className="card-head">
        <h2 id="catcher-name">{catcher.name}</h2>
        <span className="muted small" data-testid="catcher-account">
          {account?.name ?? catcher.account_id}'s catcher
        </span>
        <button type="button" className="button" onClick={() => void remove()}>
          Delete
        </button>
      </div>
      <p>
        <code data-testid="catcher-url">{catcher.url}</code> <CopyButton text={catcher.url} label="Copy URL" />
      </p>
      <p>
        <button type="button" className="button primary" data-testid="use-as-webhook" onClick={() => void makeWebhook()}>
          Use as {account ? `${account.name}'s` : "this account's"} webhook (every event kind)
        </button>{' '}
        {account && (
          <button type="button" className="button" data-testid="catcher-send" onClick={() => void sendEmail()}>
            Send a test email
          </button>
        )}{' '}
        {note && (
          <span role="status" className="muted">
            {note}
          </span>
        )}
      </p>
      <ModeControl
        key={catcher.id}
        catcher={catcher}
        onChanged={(c) => {
          setCatcher(c);
          onChanged();
        }}
      />
      <h3>
        Requests, newest first{' '}
        <span className="muted small" data-testid="requests-clock">
          (when each arrived in real time; its detail gives the emulator clock too)
        </span>
      </h3>
      {requests.length === 0 ? (
        <p className="muted" data-testid="no-requests">
          Nothing yet. Send anything to the URL above, or send an email once this is the account's webhook.
        </p>
      ) : (
        <ul className="caught-list" aria-live="polite">
          {requests.map((r) => (
            <RequestRow key={r.id} r={r} arrived={arrived.keys.has(r.id)} />
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Catchers: webhook receivers inside Mailyard. Create one, make it the account's webhook, watch what it
 * receives live, and switch how it answers (a failing receiver with no code). The list and a new
 * catcher are the account chosen in the header's, as every screen works as it.
 */
export function Catchers() {
  const path = usePath();
  const selected = idAfter(path, '/catchers');
  const [account] = useChosenAccount(useOverview((s) => s.accounts));
  const accountId = account?.id;
  // The catchers with the account they were read for: after a switch, another account's never show.
  const [listed, setListed] = useState<{ accountId: string; catchers: Catcher[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const shown = useRef(accountId);
  shown.current = accountId;
  const load = useCallback(async () => {
    if (!accountId) return;
    try {
      const catchers = (await control.listCatchers({ account_id: accountId })).data.catchers;
      // An answer for an account no longer chosen is dropped.
      if (shown.current === accountId) setListed({ accountId, catchers });
    } catch (err) {
      setError(describeError(err));
    }
  }, [accountId]);
  useEffect(() => {
    void load();
  }, [load]);
  const catchers = listed && listed.accountId === accountId ? listed.catchers : [];
  const create = async () => {
    if (!accountId) return;
    try {
      const c = (await control.createCatcher({ account_id: accountId })).data;
      await load();
      navigate(`/catchers/${c.id}`);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <main className="wide catchers">
      <section className="card catcher-list" aria-labelledby="catchers-title">
        <div className="card-head">
          <h2 id="catchers-title">Catchers</h2>
          <button type="button" className="button primary" data-testid="new-catcher" onClick={() => void create()}>
            New catcher
          </button>
        </div>
        <p className="muted" data-testid="catchers-account">
          {account ? `${account.name}'s catchers: ` : ''}webhook receivers inside Mailyard, each recording what it receives and answering as you tell it.
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <ul>
          {catchers.map((c) => (
            <li key={c.id} aria-current={c.id === selected ? 'true' : undefined}>
              <Link to={`/catchers/${c.id}`}>{c.name}</Link> <span className="muted">{describeMode(c.mode)}</span>
            </li>
          ))}
        </ul>
      </section>
      {selected ? (
        <CatcherDetail id={selected} onChanged={() => void load()} />
      ) : (
        <section className="card empty">
          <p className="muted">{catchers.length ? 'Choose a catcher.' : 'No catcher yet: “New catcher” gives you a URL in one click.'}</p>
        </section>
      )}
    </main>
  );
}
