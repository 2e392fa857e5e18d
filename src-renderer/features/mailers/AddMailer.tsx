import { type FormEvent, useState } from 'react';
import { ApiError } from '../../../src-shared/clients';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { MAILER_SECURE, type MailerRecord, type MailerSecure } from '../../../src-shared/schemas/mailers';
import { describeError, fieldErrors, serviceAs } from '../../api/clients';
import { FieldError } from '../../components/FieldError';

type Problem = { message: string; errors: Array<{ path: string; message: string }>; refused?: boolean };

/** What each `secure` value does, beside the select (as docs/mailers.md says it). */
function secureHint(secure: MailerSecure, type: 'smtp' | 'imap'): string {
  switch (secure) {
    case 'Auto':
      return `TLS from the first byte on ${type === 'smtp' ? 465 : 993}, else STARTTLS when the server offers it`;
    case 'TlsWhenAvailable':
      return 'STARTTLS when the server offers it, plain otherwise';
    case 'Tls':
      return 'STARTTLS required: a server without it fails';
    case 'SSL':
      return 'TLS from the first byte';
    case 'None':
      return 'plain text, STARTTLS never tried';
  }
}

/** Add an SMTP or IMAP configuration; the password goes to the emulator once and is never shown again. */
export function AddMailer({ account, onAdded }: { account: AccountRecord; onAdded: () => Promise<void> }) {
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
      // configureSMTP (POST /v1/smtpbasic/verify) connects and logs in before it saves anything.
      await (type === 'smtp' ? svc.configureSMTP(body) : svc.configureIMAP(body));
      setForm({ ...form, name: '', password: '' });
      await onAdded();
    } catch (err) {
      // A 422 from configureSMTP: the server refused the login, or could not be connected to; nothing was saved.
      const refused = type === 'smtp' && err instanceof ApiError && err.status === 422 && fieldErrors(err).length === 0;
      setProblem({ message: describeError(err), errors: fieldErrors(err), refused });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label="Add a mailer">
      <div className="card-head">
        <h2>Add a mailer</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: a row of buttons named for screen readers; a <fieldset> would bring its border, legend and min-width rules into the row's layout */}
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
        <span className="muted small">
          {type === 'smtp'
            ? 'saved only after connecting and logging in to the server; sends through it are relayed for real'
            : 'the inbox is watched live; new mail is posted to the webhook'}
        </span>
      </div>
      <div className="grid2">
        <label className="field">
          <span>Name</span>
          <input className="input" aria-label="Name" value={form.name} onChange={set('name')} />
          <FieldError errors={problem?.errors} path="name" />
        </label>
        <label className="field">
          <span>Email</span>
          <input className="input" aria-label="Email" value={form.email} onChange={set('email')} placeholder="app@example.com" />
          <FieldError errors={problem?.errors} path="email" />
        </label>
        <label className="field">
          <span>Host</span>
          <input className="input" aria-label="Host" value={form.host} onChange={set('host')} />
          <FieldError errors={problem?.errors} path="config.host" />
        </label>
        <label className="field">
          <span>Port</span>
          <input className="input" aria-label="Port" inputMode="numeric" value={form.port} onChange={set('port')} />
          <FieldError errors={problem?.errors} path="config.port" />
        </label>
        <label className="field">
          <span>Username</span>
          <input className="input" aria-label="Username" value={form.username} onChange={set('username')} autoComplete="off" />
          <FieldError errors={problem?.errors} path="config.username" />
        </label>
        <label className="field">
          <span>Password</span>
          <input className="input" aria-label="Password" type="password" value={form.password} onChange={set('password')} autoComplete="new-password" />
          <FieldError errors={problem?.errors} path="config.password" />
        </label>
        <label className="field">
          <span>Security</span>
          <select className="input" aria-label="Security" value={form.secure} onChange={set('secure')}>
            {MAILER_SECURE.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
          <span className="muted small" data-testid="secure-hint">
            {secureHint(form.secure as MailerSecure, type)}
          </span>
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
            <FieldError errors={problem?.errors} path="webhook" words={(_, message) => message} />
          </label>
        )}
      </div>
      {problem && (
        <p className="error" role="alert">
          {problem.refused ? `Not saved: the server did not accept the connection or the login: ${problem.message}` : problem.message}
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
