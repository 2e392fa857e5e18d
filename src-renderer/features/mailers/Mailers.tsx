import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { MAILER_SECURE, type MailerRecord } from '../../../src-shared/schemas/mailers';
import { control, describeError, fieldErrors, serviceAs } from '../../api/clients';
import { live } from '../../api/live';
import { useOverview } from '../../stores/overview-store';

type Mailer = MailerRecord & { account_id: string };
type Problem = { message: string; errors: Array<{ path: string; message: string }> };

const STATUS_TONE: Record<string, string> = { connected: 'ok', ok: 'ok', connecting: 'wait', untested: 'muted', error: 'bad' };

function FieldError({ problem, path }: { problem: Problem | null; path: string }) {
  const errs = problem?.errors.filter((e) => e.path === path || e.path.startsWith(`${path}.`)) ?? [];
  if (errs.length === 0) return null;
  return <span className="field-error">{errs.map((e) => e.message).join('; ')}</span>;
}

/** Add an SMTP or IMAP configuration; the password goes to the emulator once and is never shown again. */
function AddMailer({ account, onAdded }: { account: AccountRecord; onAdded: () => Promise<void> }) {
  const [type, setType] = useState<'smtp' | 'imap'>('smtp');
  const [connection, setConnection] = useState<'basic' | 'oauth'>('basic');
  const [form, setForm] = useState({ name: '', email: '', host: '127.0.0.1', port: '587', username: '', password: '', secure: 'Auto', webhook: '' });
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const body = {
      name: form.name,
      email: form.email,
      config_type: type,
      connection_type: connection,
      config: {
        host: form.host,
        port: Number(form.port),
        ...(form.username ? { username: form.username } : {}),
        ...(form.password ? { password: form.password } : {}),
        secure: form.secure as MailerRecord['config']['secure'],
      },
      ...(type === 'imap' && form.webhook ? { webhook: { url: form.webhook, method: 'POST' as const } } : {}),
    };
    try {
      const svc = serviceAs(account.api_key);
      await (type === 'smtp' ? svc.configureSMTP(body) : svc.configureIMAP(body));
      setForm({ ...form, name: '', password: '' });
      await onAdded();
    } catch (err) {
      setProblem({ message: describeError(err), errors: fieldErrors(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label="Add a mailer">
      <div className="card-head">
        <h2>Add a mailer</h2>
        <div className="segmented" role="group" aria-label="Type">
          {(['smtp', 'imap'] as const).map((t) => (
            <button
              key={t}
              type="button"
              className={`seg${type === t ? ' on' : ''}`}
              aria-pressed={type === t}
              onClick={() => {
                setType(t);
                setForm({ ...form, port: t === 'smtp' ? '587' : '143' });
              }}
            >
              {t.toUpperCase()}
            </button>
          ))}
        </div>
        <span className="muted small">{type === 'smtp' ? 'sends with settings.mailer_id are relayed to this server for real' : 'the inbox is watched live; new mail is posted to the webhook'}</span>
      </div>
      <div className="grid2">
        <label className="field">
          <span>Name</span>
          <input className="input" aria-label="Name" value={form.name} onChange={set('name')} />
          <FieldError problem={problem} path="name" />
        </label>
        <label className="field">
          <span>Email</span>
          <input className="input" aria-label="Email" value={form.email} onChange={set('email')} placeholder="app@example.com" />
          <FieldError problem={problem} path="email" />
        </label>
        <label className="field">
          <span>Host</span>
          <input className="input" aria-label="Host" value={form.host} onChange={set('host')} />
          <FieldError problem={problem} path="config.host" />
        </label>
        <label className="field">
          <span>Port</span>
          <input className="input" aria-label="Port" inputMode="numeric" value={form.port} onChange={set('port')} />
          <FieldError problem={problem} path="config.port" />
        </label>
        <label className="field">
          <span>Username</span>
          <input className="input" aria-label="Username" value={form.username} onChange={set('username')} autoComplete="off" />
          <FieldError problem={problem} path="config.username" />
        </label>
        <label className="field">
          <span>Password</span>
          <input className="input" aria-label="Password" type="password" value={form.password} onChange={set('password')} autoComplete="new-password" />
          <FieldError problem={problem} path="config.password" />
        </label>
        <label className="field">
          <span>Security</span>
          <select className="input" aria-label="Security" value={form.secure} onChange={set('secure')}>
            {MAILER_SECURE.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Login</span>
          <select className="input" aria-label="Login" value={connection} onChange={(e) => setConnection(e.target.value as 'basic' | 'oauth')}>
            <option value="basic">basic (password)</option>
            <option value="oauth">oauth (log in after adding)</option>
          </select>
        </label>
        {type === 'imap' && (
          <label className="field span2">
            <span>Webhook URL (new mail is posted here)</span>
            <input className="input" aria-label="Webhook URL" value={form.webhook} onChange={set('webhook')} placeholder="http://127.0.0.1:3000/imap" />
            <FieldError problem={problem} path="webhook" />
          </label>
        )}
      </div>
      {problem && (
        <p className="error" role="alert">
          {problem.message}
        </p>
      )}
      <div className="toolbar">
        <button type="submit" className="button primary" disabled={busy}>
          Add {type.toUpperCase()} mailer
        </button>
      </div>
    </form>
  );
}

function MailerRow({ mailer, account, onChanged }: { mailer: Mailer; account: AccountRecord; onChanged: () => Promise<void> }) {
  const [note, setNote] = useState<{ ok: boolean; text: string; link?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (f: () => Promise<{ ok: boolean; text: string; link?: string } | void>) => {
    setBusy(true);
    setNote(null);
    try {
      const result = await f();
      if (result) setNote(result);
      await onChanged();
    } catch (err) {
      setNote({ ok: false, text: describeError(err) });
    } finally {
      setBusy(false);
    }
  };
  const svc = serviceAs(account.api_key);
  return (
    <tr data-testid={`mailer-${mailer.mailer_id}`}>
      <td>
        <b>{mailer.name}</b>
        <div className="muted small">{mailer.email}</div>
      </td>
      <td>
        <code className="small">{mailer.config_type.toUpperCase()}</code>
      </td>
      <td className="target">
        {mailer.config.host}:{mailer.config.port} · {mailer.config.secure}
        <div className="muted small">
          {mailer.config.username || 'no login'}
          {mailer.config.has_password ? ' · password stored' : ''}
          {mailer.oauth?.has_token ? ` · OAuth token (${mailer.oauth_active ? 'on' : 'off'})` : ''}
        </div>
      </td>
      <td>
        <span className={`pill tone-${STATUS_TONE[mailer.status] ?? 'muted'}`} data-testid="mailer-status">
          {mailer.status}
        </span>
        {mailer.last_error && <div className="error small">{mailer.last_error}</div>}
        {note && (
          <div className={`${note.ok ? 'notice' : 'error'} small`} role="status">
            {note.text}
            {note.link && (
              <>
                {' '}
                <a href={note.link} target="_blank" rel="noreferrer">
                  open the consent page
                </a>
              </>
            )}
          </div>
        )}
      </td>
      <td>
        <div className="toolbar">
          <button
            type="button"
            className="button small"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                const r = (await control.testMailer(mailer.mailer_id)).data;
                return { ok: r.ok, text: `${r.message} (${r.duration_ms} ms)` };
              })
            }
          >
            Test
          </button>
          <button
            type="button"
            className="button small"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                const r = (await svc.oauthLogin({ app_id: 'mailyard-ui', mailer_id: mailer.mailer_id })).data;
                if (!('authorization_url' in r)) return;
                window.open(r.authorization_url, '_blank', 'noopener');
                return { ok: true, text: 'Approve the login in the page that opened.', link: r.authorization_url };
              })
            }
          >
            OAuth login
          </button>
          {mailer.oauth?.has_token && (
            <button type="button" className="button small" disabled={busy} onClick={() => void act(async () => void (await svc.setOAuthActive({ mailer_id: mailer.mailer_id, active: !mailer.oauth_active })))}>
              {mailer.oauth_active ? 'OAuth off' : 'OAuth on'}
            </button>
          )}
          <button
            type="button"
            className="button small danger"
            disabled={busy}
            onClick={() => {
              if (!window.confirm(`Delete the mailer ${mailer.name}?`)) return;
              void act(async () => void (await (mailer.config_type === 'smtp' ? svc.deleteSMTPConfig(mailer.mailer_id) : svc.deleteIMAPConfig(mailer.mailer_id))));
            }}
          >
            Delete
          </button>
        </div>
      </td>
    </tr>
  );
}

/** The account's SMTP and IMAP mailers with their live status: add, test, OAuth login, delete. */
export function Mailers() {
  const { accounts } = useOverview();
  const [accountId, setAccountId] = useState('');
  const account = accounts.find((a) => a.id === accountId) ?? accounts.find((a) => a.is_default) ?? accounts[0];
  const [mailers, setMailers] = useState<Mailer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setMailers((await control.listEmulatorMailers()).data);
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  }, []);
  useEffect(() => {
    void load();
    // Status changes (connecting, connected, error), additions and OAuth logins arrive on the live stream.
    const off = live.on('mailer.updated', () => void load());
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      off();
      offReconnect();
    };
  }, [load]);
  const mine = (mailers ?? []).filter((m) => m.account_id === account?.id);
  return (
    <main className="wide">
      {accounts.length > 1 && (
        <label className="form-row">
          Account{' '}
          <select className="input" value={account?.id ?? ''} onChange={(e) => setAccountId(e.target.value)}>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {error && <p className="error">{error}</p>}
      <section className="card" aria-labelledby="mailers-title">
        <div className="card-head">
          <h2 id="mailers-title">Mailers</h2>
          <span className="muted small">SMTP servers that relay mail for real, and IMAP inboxes watched live. Passwords and tokens are stored encrypted and never shown.</span>
        </div>
        {mailers && mine.length === 0 && <p className="muted">No mailers yet.</p>}
        {account && mine.length > 0 && (
          <table className="table" aria-label="Mailers">
            <thead>
              <tr>
                <th>Name</th>
                <th>Type</th>
                <th>Server</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {mine.map((m) => (
                <MailerRow key={m.mailer_id} mailer={m} account={account} onChanged={load} />
              ))}
            </tbody>
          </table>
        )}
      </section>
      {account && <AddMailer key={account.id} account={account} onAdded={load} />}
    </main>
  );
}
