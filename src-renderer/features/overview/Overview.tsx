import { useEffect, useState } from 'react';
import type { Catcher } from '../../../src-shared/schemas/catchers';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { control, describeError, serviceAs } from '../../api/clients';
import { live } from '../../api/live';
import { useChosenAccount } from '../../components/AccountSelect';
import { CopyButton } from '../../components/CopyButton';
import { Link } from '../../components/Link';
import { navigate } from '../../router';
import { useOverview } from '../../stores/overview-store';
import { catchWebhooksHere, DEMO_RECIPIENT, sendTestEmail } from '../catchers/Catchers';
import { firstSendCommand } from '../messages/Messages';
import { DashboardStrip } from './DashboardStrip';

/**
 * Whether the account has sent an email and has a webhook (null until known): the "first email" and
 * "first webhook" cards show only until then. Loaded each time Overview opens; a new message reloads it.
 */
function useFirstSteps(account: AccountRecord | undefined): { sent: boolean; webhook: boolean } | null {
  const [steps, setSteps] = useState<{ sent: boolean; webhook: boolean } | null>(null);
  const id = account?.id;
  const key = account?.api_key;
  useEffect(() => {
    if (!id || !key) return;
    let gone = false;
    const load = async () => {
      try {
        const [count, hooks] = await Promise.all([control.countMessages({ account_id: id }), serviceAs(key).listWebhooks()]);
        if (!gone) setSteps({ sent: count.data.count > 0, webhook: hooks.data.length > 0 });
      } catch {
        // Unknown: the cards show (the page shows the emulator's error itself).
        if (!gone) setSteps((s) => s ?? { sent: false, webhook: false });
      }
    };
    void load();
    const off = live.on('message.created', () => void load());
    // A send announced before the live stream was up (or while it was down) is read on its (re)connection.
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      gone = true;
      off();
      offReconnect();
    };
  }, [id, key]);
  return steps;
}

function firstWebhookCommand(httpUrl: string, apiKey: string): string {
  return [
    `curl -X POST ${httpUrl}/v1/webhook/register \\`,
    `  -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' \\`,
    `  -d '{"webhook_url":"http://127.0.0.1:3000/hooks","event":"EMAIL_EVENT","method":"POST","webhook_options":{"events":{"delivery":true,"bounce":true}}}'`,
  ].join('\n');
}

/**
 * The demo with no terminal: a catcher as the account's webhook, then an email to a simulator address
 * whose delivery, open and click arrive at the catcher, live (its page opens once the email is sent).
 */
function TryIt({ account }: { account: AccountRecord }) {
  const [catcher, setCatcher] = useState<Catcher | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const send = async () => {
    setError(null);
    try {
      setSent(await sendTestEmail(account.api_key));
      if (catcher) navigate(`/catchers/${catcher.id}`);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const catchHere = async () => {
    setError(null);
    try {
      setCatcher(await catchWebhooksHere(account.id));
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section className="card" aria-labelledby="try-it">
      <h2 id="try-it">Try it, no terminal needed</h2>
      <p className="muted">
        Catch the webhooks here: a receiver inside Mailyard becomes <span data-testid="demo-account">{account.name}</span>'s webhook. Then send a test email to{' '}
        <code>{DEMO_RECIPIENT}</code>: its delivery, open and click arrive at the catcher, live; make the catcher fail and watch the retries.
      </p>
      <p>
        <button type="button" className="button primary" data-testid="demo-catch" disabled={catcher !== null} onClick={() => void catchHere()}>
          Catch webhooks here
        </button>{' '}
        <button type="button" className="button primary" data-testid="demo-send" onClick={() => void send()}>
          Send a test email
        </button>
      </p>
      {catcher && (
        <p role="status" data-testid="demo-catching">
          Catching at <code>{catcher.url}</code> (every event kind). <Link to={`/catchers/${catcher.id}`}>Watch it</Link>
        </p>
      )}
      {sent && (
        <p role="status" data-testid="demo-sent">
          Sent: ref_id <code>{sent}</code>. Its events follow on the emulator clock.
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

export function Overview() {
  // The store is loaded by the App (its header shows the emulator's status on every screen).
  const { health, accounts, error, loading, load } = useOverview();
  // The header's account, like every screen (the default one until another is chosen).
  const [account] = useChosenAccount(accounts);
  const steps = useFirstSteps(account);
  // Once shown, the demo stays while Overview is open (its own steps make the first-steps check pass).
  const [tried, setTried] = useState(false);
  useEffect(() => {
    if (steps && (!steps.sent || !steps.webhook)) setTried(true);
  }, [steps]);
  return (
    <main>
      {account && <DashboardStrip account={account} />}
      {loading && <p className="muted">Loading…</p>}
      {error && (
        <p className="error" role="alert">
          {error}{' '}
          <button type="button" className="button" onClick={() => void load()}>
            Retry
          </button>
        </p>
      )}
      {account && steps && (!steps.sent || !steps.webhook || tried) && <TryIt key={account.id} account={account} />}
      {health && (
        <section className="card" aria-labelledby="listeners">
          <h2 id="listeners">Listeners</h2>
          <dl className="facts">
            <dt>HTTP</dt>
            <dd>
              <code data-testid="http-url">{health.urls.http}</code> <span className="muted">port {health.ports.http}</span>
            </dd>
            <dt>SMTP</dt>
            <dd>{health.urls.smtp ? <code>{health.urls.smtp}</code> : <span className="muted">not available in this version yet</span>}</dd>
            <dt>Data</dt>
            <dd>{health.data_dir ? <code>{health.data_dir}</code> : <span className="muted">in memory: nothing is kept after exit</span>}</dd>
            <dt>API docs</dt>
            <dd>
              <a href="/openapi.json">/openapi.json</a> <span className="muted">(OpenAPI 3.1)</span>
            </dd>
          </dl>
        </section>
      )}
      {accounts.length > 0 && (
        <section className="card" aria-labelledby="accounts">
          <h2 id="accounts">API keys</h2>
          <table className="table">
            <thead>
              <tr>
                <th>Account</th>
                <th>API key</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.id}>
                  <td>
                    {a.name} {a.is_default && <span className="badge">default</span>}
                  </td>
                  <td>
                    <code data-testid="api-key">{a.api_key}</code>
                  </td>
                  <td>
                    <CopyButton text={a.api_key} label="Copy key" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {health && account && steps && !steps.sent && (
        <section className="card" aria-labelledby="first-send">
          <h2 id="first-send">Send your first email</h2>
          <p className="muted">
            To a simulator address: <code>click@sim.mailyard.test</code> gets a delivery, an open and a click, on the emulator clock.
          </p>
          <pre className="snippet send">{firstSendCommand(health.urls.http, account.api_key)}</pre>
          <CopyButton text={firstSendCommand(health.urls.http, account.api_key)} label="Copy send command" />
        </section>
      )}
      {health && account && steps && !steps.webhook && (
        <section className="card" aria-labelledby="next">
          <h2 id="next">Register your first webhook</h2>
          <p className="muted">Point it at your local receiver; events are delivered there with real retries.</p>
          <pre className="snippet webhook-cmd">{firstWebhookCommand(health.urls.http, account.api_key)}</pre>
          <CopyButton text={firstWebhookCommand(health.urls.http, account.api_key)} label="Copy command" />
        </section>
      )}
    </main>
  );
}
