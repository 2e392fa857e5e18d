import { type FormEvent, useState } from 'react';
import { DESKTOP_API_KEY, type MailyardDesktopApi } from '../../../src-shared/desktop-api';
import { PAYLOAD_FORMATS, type PayloadFormat } from '../../../src-shared/payload-format';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { control, describeError } from '../../api/clients';
import { CopyButton } from '../../components/CopyButton';
import { DeleteAccountsDialog, describeRemoved } from '../../components/DeleteAccounts';
import { Time } from '../../components/Time';
import { useOverview } from '../../stores/overview-store';
import { StoreSection } from './StoreSection';

/** Accounts with their API keys, and how this emulator runs: ports, data directory, version. */
/** The desktop app's preload functions; absent in a browser. */
const desktop = () => (window as unknown as Record<string, MailyardDesktopApi | undefined>)[DESKTOP_API_KEY];

/** How the Settings screen names each webhook body shape. */
const PAYLOAD_FORMAT_LABELS: Record<PayloadFormat, string> = {
  spec: 'spec (event: delivery)',
  'mailer-events': 'mailer_events (MAIL_DELIVERED)',
};

export function Settings() {
  const { health, accounts, load } = useOverview();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<AccountRecord | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await control.createAccount(name.trim() ? { name: name.trim() } : {});
      setName('');
      await load();
    } catch (err) {
      setError(describeError(err));
    }
  };
  const setFormat = async (accountId: string, format: PayloadFormat) => {
    setError(null);
    try {
      await control.setPayloadFormat(accountId, { payload_format: format });
      await load();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <main className="wide">
      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Accounts and API keys</h2>
        <p className="muted small">
          Each key is an account: its webhooks, messages and domains are its own. Use it as <code>Authorization: Bearer KEY</code> on <code>/v1</code>, or as
          the SMTP password. Webhook payload: the shape its email events are sent in, the spec's (<code>"event": "delivery"</code>) or the newer guide's (
          <code>{'"mailer_events": {"event": "MAIL_DELIVERED", ...}'}</code>).
        </p>
        {/* A narrow window scrolls the table within its card, never the page. */}
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th>Account</th>
                <th>API key</th>
                <th>
                  Created <span className="muted small">(emulator clock)</span>
                </th>
                <th>Signed webhooks</th>
                <th>Webhook payload</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.id}>
                  <td>
                    <span className="account-name" title={a.name}>
                      {a.name}
                    </span>{' '}
                    {a.is_default && <span className="badge">default</span>}
                  </td>
                  <td>
                    <code>{a.api_key}</code> <CopyButton text={a.api_key} label="Copy key" />
                  </td>
                  <td>
                    <Time emulator={a.created_at} exact />
                  </td>
                  <td>{a.signing_secret ? 'yes' : <span className="muted">no</span>}</td>
                  <td>
                    <select
                      className="input"
                      aria-label={`Webhook payload of ${a.name}`}
                      value={a.payload_format}
                      onChange={(e) => void setFormat(a.id, e.target.value as PayloadFormat)}
                    >
                      {PAYLOAD_FORMATS.map((f) => (
                        <option key={f} value={f}>
                          {PAYLOAD_FORMAT_LABELS[f]}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    {!a.is_default && (
                      <button
                        type="button"
                        className="button small danger"
                        aria-label={`Delete ${a.name}`}
                        onClick={() => {
                          setNotice(null);
                          setDeleting(a);
                        }}
                      >
                        Delete…
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <form className="form-row" onSubmit={(e) => void create(e)}>
          <input className="input" aria-label="New account name" placeholder="Account name" value={name} onChange={(e) => setName(e.target.value)} />
          <button className="button" type="submit">
            Create account
          </button>
          {error && <span className="error">{error}</span>}
          {notice && (
            <span className="notice" role="status" data-testid="accounts-notice">
              {notice}
            </span>
          )}
        </form>
        {deleting && (
          <DeleteAccountsDialog
            accounts={[deleting]}
            title={`Delete the account “${deleting.name}” and all its data?`}
            onCancel={() => setDeleting(null)}
            onDone={({ deleted, error: failed }) => {
              setDeleting(null);
              setError(failed);
              if (deleted.length > 0) setNotice(describeRemoved(deleted));
            }}
          />
        )}
      </section>
      {health && (
        <section className="card" aria-labelledby="run-title">
          <h2 id="run-title">This emulator</h2>
          <dl className="facts">
            <dt>Version</dt>
            <dd data-testid="version">{health.version}</dd>
            <dt>HTTP</dt>
            <dd>
              <code>{health.urls.http}</code> <span className="muted">port {health.ports.http}</span>
            </dd>
            <dt>SMTP</dt>
            <dd>
              {health.urls.smtp ? <code>{health.urls.smtp}</code> : <span className="muted">off</span>}{' '}
              {health.ports.smtp !== null && <span className="muted">port {health.ports.smtp}</span>}
            </dd>
            <dt>Data</dt>
            <dd>
              {health.data_dir ? (
                <>
                  <code>{health.data_dir}</code> <CopyButton text={health.data_dir} label="Copy path" />{' '}
                  {desktop() && (
                    <button type="button" className="button" onClick={() => void desktop()!.openDataFolder()}>
                      Open folder
                    </button>
                  )}
                </>
              ) : (
                <span className="muted">in memory: nothing is kept after exit</span>
              )}
            </dd>
            <dt>Started</dt>
            <dd>
              <Time emulator={health.started_at} exact /> <span className="muted">(emulator clock)</span>
            </dd>
            <dt>API</dt>
            <dd>
              <a href="/openapi.json">/openapi.json</a> <span className="muted">(OpenAPI 3.1)</span>
            </dd>
          </dl>
        </section>
      )}
      <StoreSection />
    </main>
  );
}
