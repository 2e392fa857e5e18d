import { useCallback, useEffect, useState } from 'react';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import type { EmulatorMailerRecord } from '../../../src-shared/schemas/mailers';
import { control, describeError, serviceAs } from '../../api/clients';
import { live } from '../../api/live';
import { useRun } from '../../api/use-run';
import { useChosenAccount } from '../../components/AccountSelect';
import { WouldRefuse } from '../../components/WouldRefuse';
import { useOverview } from '../../stores/overview-store';
import { AddMailer } from './AddMailer';
import { ImapMessages } from './ImapMessages';

type Mailer = EmulatorMailerRecord;

const STATUS_TONE: Record<string, string> = { connected: 'ok', ok: 'ok', connecting: 'wait', untested: 'muted', error: 'bad' };

function MailerRow({ mailer, account, onChanged }: { mailer: Mailer; account: AccountRecord; onChanged: () => Promise<void> }) {
  const [done, setDone] = useState<{ ok: boolean; text: string; link?: string } | null>(null);
  const { busy, error, run } = useRun();
  const act = (f: () => Promise<{ ok: boolean; text: string; link?: string } | undefined>) =>
    run(async () => {
      setDone(null);
      const result = await f();
      if (result) setDone(result);
      await onChanged();
    });
  // What the last button did, or why it failed.
  const note = error ? { ok: false, text: error, link: undefined } : done;
  const svc = serviceAs(account.api_key);
  const [showMessages, setShowMessages] = useState(false);
  return (
    <>
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
          <WouldRefuse warnings={mailer.warnings} taken="saved it" what="this configuration" testId="mailer-warnings" />
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
            {mailer.config_type === 'imap' && (
              <button type="button" className="button small" aria-expanded={showMessages} onClick={() => setShowMessages((v) => !v)}>
                {showMessages ? 'Hide messages' : 'Messages'}
              </button>
            )}
            <button
              type="button"
              className="button small"
              disabled={busy}
              onClick={() =>
                void act(async () => {
                  // The real service's answer is {success, url}: the consent page to open.
                  const { url } = await svc.oauthLogin({ app_id: 'mailyard-ui', mailer_id: mailer.mailer_id, type: mailer.config_type });
                  window.open(url, '_blank', 'noopener');
                  return { ok: true, text: 'Approve the login in the page that opened.', link: url };
                })
              }
            >
              OAuth login
            </button>
            {mailer.oauth?.has_token && (
              <button
                type="button"
                className="button small"
                disabled={busy}
                onClick={() => void act(async () => void (await svc.setOAuthActive({ mailer_id: mailer.mailer_id, active: !mailer.oauth_active })))}
              >
                {mailer.oauth_active ? 'OAuth off' : 'OAuth on'}
              </button>
            )}
            <button
              type="button"
              className="button small danger"
              disabled={busy}
              onClick={() => {
                if (!window.confirm(`Delete the mailer ${mailer.name}?`)) return;
                void act(
                  async () => void (await (mailer.config_type === 'smtp' ? svc.deleteSMTPConfig(mailer.mailer_id) : svc.deleteIMAPConfig(mailer.mailer_id))),
                );
              }}
            >
              Delete
            </button>
          </div>
        </td>
      </tr>
      {showMessages && (
        <tr data-testid={`mailer-messages-${mailer.mailer_id}`}>
          <td colSpan={5}>
            <ImapMessages mailerId={mailer.mailer_id} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The account's SMTP and IMAP mailers with their live status: add, test, OAuth login, delete, and what each IMAP inbox gave. */
export function Mailers() {
  const { accounts } = useOverview();
  const [account] = useChosenAccount(accounts);
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
      {error && <p className="error">{error}</p>}
      <section className="card" aria-labelledby="mailers-title">
        <div className="card-head">
          <h2 id="mailers-title">Mailers</h2>
          <span className="muted small">
            SMTP servers that relay mail for real, and IMAP inboxes watched live. Passwords and tokens are stored encrypted and never shown.
          </span>
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
