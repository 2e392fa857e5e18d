import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { EMAIL_EVENT_KINDS, WEBHOOK_METHODS, type WebhookEvent, type WebhookMethod } from '../../../src-shared/events';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import type { WebhookRecord } from '../../../src-shared/schemas/webhooks';
import { control, describeError, fieldErrors, serviceAs } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { useChosenAccount } from '../../components/AccountSelect';
import { CopyButton } from '../../components/CopyButton';
import { FieldError, problemsElsewhere } from '../../components/FieldError';
import { Time } from '../../components/Time';
import { useOverview } from '../../stores/overview-store';
import { CertifyReceiver } from './CertifyReceiver';
import { TestEvent } from './TestEvent';
import './webhooks.css';

interface Problem {
  message: string;
  errors: Array<{ path: string; message: string }>;
}

/** The paths the form shows beside a field. */
const FIELD_PATHS = ['webhook_url', 'method', 'headers', 'webhook_options'];

const TYPES: Array<{ event: WebhookEvent; title: string; about: string }> = [
  { event: 'EMAIL_EVENT', title: 'Email events', about: 'delivery, open, click, bounce… for every message, the kinds you enable' },
  { event: 'DOMAIN_VERIFICATION', title: 'Domain verification', about: "a notification whenever a sending domain's status changes" },
];

function WebhookForm({
  type,
  existing,
  account,
  onChanged,
}: {
  type: (typeof TYPES)[number];
  existing: WebhookRecord | undefined;
  account: AccountRecord;
  onChanged: () => Promise<void>;
}) {
  const [url, setUrl] = useState(existing?.webhook_url ?? '');
  const [method, setMethod] = useState<WebhookMethod>(existing?.method ?? 'POST');
  const [headers, setHeaders] = useState<Array<[string, string]>>(Object.entries(existing?.headers ?? {}));
  const [events, setEvents] = useState<Record<string, boolean>>({ ...(existing?.webhook_options?.events ?? {}) });
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const isEmail = type.event === 'EMAIL_EVENT';

  const run = async (action: () => Promise<{ message: string }>) => {
    setBusy(true);
    setProblem(null);
    setNotice(null);
    try {
      const res = await action();
      setNotice(res.message);
      await onChanged();
    } catch (err) {
      setProblem({ message: describeError(err), errors: fieldErrors(err) });
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const svc = serviceAs(account.api_key);
    const body = {
      event: type.event,
      webhook_url: url,
      method,
      headers: Object.fromEntries(headers.filter(([n]) => n.trim() !== '').map(([n, v]) => [n.trim(), v])),
      ...(isEmail ? { webhook_options: { events: Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, events[k] === true])) } } : {}),
    };
    void run(() => (existing ? svc.updateWebhook(body) : svc.registerWebhook(body)));
  };

  return (
    <form className="card webhook" onSubmit={submit} aria-label={`${type.event} webhook`} data-testid={`webhook-${type.event}`}>
      <div className="card-head">
        <h2>{type.title}</h2>
        <code className="small">{type.event}</code>
        <span className={`pill ${existing ? 'tone-ok' : 'tone-muted'}`}>{existing ? 'registered' : 'not registered'}</span>
        <span className="spacer" />
        <span className="muted small">{type.about}</span>
      </div>
      <div className="grid2">
        <label className="field span2">
          <span>URL</span>
          <input className="input" aria-label="Webhook URL" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:3000/hooks" />
          <FieldError errors={problem?.errors} path="webhook_url" />
        </label>
        <label className="field">
          <span>Method</span>
          <select className="input" aria-label="Method" value={method} onChange={(e) => setMethod(e.target.value as WebhookMethod)}>
            {WEBHOOK_METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <FieldError errors={problem?.errors} path="method" />
        </label>
        <div className="field">
          <span>Headers</span>
          {headers.map(([n, v], i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: header rows being edited have no identity but their place; their inputs are controlled by the list
            <div className="header-row" key={i}>
              <input
                className="input"
                aria-label="Header name"
                value={n}
                placeholder="X-Secret"
                onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? [e.target.value, h[1]] : h)))}
              />
              <input
                className="input"
                aria-label="Header value"
                value={v}
                onChange={(e) => setHeaders(headers.map((h, j) => (j === i ? [h[0], e.target.value] : h)))}
              />
              <button type="button" className="button small" aria-label="Remove header" onClick={() => setHeaders(headers.filter((_, j) => j !== i))}>
                ×
              </button>
            </div>
          ))}
          <button type="button" className="button small" onClick={() => setHeaders([...headers, ['', '']])}>
            Add header
          </button>
          <FieldError errors={problem?.errors} path="headers" />
        </div>
        {isEmail && (
          <fieldset className="field span2 toggles toggle-grid webhook-events">
            <legend>
              Events{' '}
              <button type="button" className="linkish" onClick={() => setEvents(Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true])))}>
                all
              </button>{' '}
              <button type="button" className="linkish" onClick={() => setEvents({})}>
                none
              </button>
            </legend>
            {EMAIL_EVENT_KINDS.map((k) => (
              <label key={k} className="toggle">
                <input type="checkbox" checked={events[k] === true} onChange={(e) => setEvents({ ...events, [k]: e.target.checked })} /> {k}
              </label>
            ))}
            <FieldError errors={problem?.errors} path="webhook_options" />
          </fieldset>
        )}
      </div>
      {problem && (
        <p className="error" role="alert" data-testid="webhook-error">
          {/* A problem shown beside its field is not said again here. */}
          {problem.errors.length > 0 && problemsElsewhere(problem.errors, FIELD_PATHS).length === 0
            ? problem.errors.length === 1
              ? 'Not saved: see the field marked above.'
              : `Not saved: see the ${problem.errors.length} problems marked above.`
            : problem.message}
        </p>
      )}
      {notice && (
        <p className="notice" data-testid="webhook-notice">
          {notice}
        </p>
      )}
      <div className="toolbar">
        <button type="submit" className="button primary" disabled={busy}>
          {existing ? 'Save changes' : 'Register'}
        </button>
        {existing && (
          <button
            type="button"
            className="button danger"
            disabled={busy}
            onClick={() => {
              if (window.confirm(`Delete the ${type.event} webhook? Scheduled retries to it are cancelled.`)) {
                void run(() => serviceAs(account.api_key).deleteWebhook({ event: type.event }));
              }
            }}
          >
            Delete
          </button>
        )}
      </div>
    </form>
  );
}

function SigningSecret({ account, onChanged }: { account: AccountRecord; onChanged: () => Promise<void> }) {
  const { busy, error, run } = useRun();
  const [show, setShow] = useState(false);
  const act = (f: () => Promise<unknown>) =>
    run(async () => {
      await f();
      await onChanged();
    });
  return (
    <section className="card" aria-labelledby="secret-title">
      <div className="card-head">
        <h2 id="secret-title">Signing secret</h2>
        <span className="muted small">Standard Webhooks: each request gets webhook-signature, an HMAC-SHA256 of id, timestamp and body.</span>
      </div>
      {account.signing_secret ? (
        <p>
          <code data-testid="signing-secret">{show ? account.signing_secret : `${account.signing_secret.slice(0, 10)}…`}</code>{' '}
          <button type="button" className="button small" onClick={() => setShow(!show)}>
            {show ? 'Hide' : 'Show'}
          </button>{' '}
          <CopyButton text={account.signing_secret} label="Copy secret" />
        </p>
      ) : (
        <p className="muted">Requests are not signed.</p>
      )}
      {account.previous_signing_secret && account.previous_secret_until && (
        <p className="small" data-testid="previous-secret">
          The old secret <code>{account.previous_signing_secret.slice(0, 10)}…</code> still signs until{' '}
          <Time emulator={account.previous_secret_until} exact future />: each request carries both signatures, so a receiver still holding it keeps verifying
          until it updates.
        </p>
      )}
      <div className="toolbar">
        <button type="button" className="button" disabled={busy} onClick={() => void act(() => control.setSigningSecret(account.id))}>
          {account.signing_secret ? 'Rotate (old secret signs for a day too)' : 'Generate a secret'}
        </button>
        {account.signing_secret && (
          <button type="button" className="button danger" disabled={busy} onClick={() => void act(() => control.deleteSigningSecret(account.id))}>
            Stop signing
          </button>
        )}
      </div>
      {error && <p className="error">{error}</p>}
    </section>
  );
}

/** The account's two webhooks (register, edit, delete) and its signing secret. */
export function Webhooks() {
  const { accounts, load: loadAccounts } = useOverview();
  const [account] = useChosenAccount(accounts);
  // The hooks with the account they were read for: after a switch, the forms wait for the new account's
  // hooks (a form initialised from the previous account's would save its URL on the new one).
  const [loaded, setLoaded] = useState<{ accountId: string; hooks: WebhookRecord[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const shown = useRef<string | undefined>(undefined);
  shown.current = account?.id;
  const load = useCallback(async () => {
    if (!account) return;
    try {
      const hooks = (await serviceAs(account.api_key).listWebhooks()).data;
      // An answer for an account no longer chosen is dropped.
      if (shown.current !== account.id) return;
      setLoaded({ accountId: account.id, hooks });
      setError(null);
    } catch (err) {
      if (shown.current === account.id) setError(describeError(err));
    }
  }, [account]);
  useEffect(() => {
    void load();
  }, [load]);
  const hooks = account && loaded?.accountId === account.id ? loaded.hooks : null;
  const emailHook = hooks?.find((h) => h.event === 'EMAIL_EVENT');
  return (
    <main className="wide">
      {error && <p className="error">{error}</p>}
      {account && !hooks && !error && (
        <p className="muted" data-testid="webhooks-loading">
          Loading {account.name}'s webhooks…
        </p>
      )}
      {account &&
        hooks &&
        TYPES.map((t) => {
          const existing = hooks.find((h) => h.event === t.event);
          // One form per account and type: a switch of account mounts a new one with that account's stored values.
          return <WebhookForm key={`${account.id}:${t.event}`} type={t} existing={existing} account={account} onChanged={load} />;
        })}
      {/* Remounted when the webhook changes: its kinds are the choices. */}
      {account && emailHook && <TestEvent key={`${account.id}:${emailHook.updated_at}`} account={account} hook={emailHook} />}
      {account && <SigningSecret account={account} onChanged={loadAccounts} />}
      {account && hooks && <CertifyReceiver key={account.id} account={account} webhook={hooks.find((h) => h.event === 'EMAIL_EVENT')} />}
    </main>
  );
}
