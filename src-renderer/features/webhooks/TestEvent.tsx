import { useState } from 'react';
import type { z } from 'zod';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../../src-shared/events';
import type { FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import type { WebhookRecord } from '../../../src-shared/schemas/webhooks';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { Link } from '../../components/Link';

/**
 * "Send test event": one synthetic event of a kind the account's EMAIL_EVENT webhook takes, with the
 * kind's realistic payload in the account's body shape, delivered (and signed) as a simulated one is.
 */
export function TestEvent({ account, hook }: { account: AccountRecord; hook: WebhookRecord }) {
  const enabled = EMAIL_EVENT_KINDS.filter((k) => hook.webhook_options?.events[k] === true);
  const [kind, setKind] = useState<EmailEventKind>(enabled[0] ?? 'delivery');
  const [result, setResult] = useState<z.output<typeof FireEventResult> | null>(null);
  const { busy, error, run } = useRun();
  const send = async () => {
    setResult(null);
    setResult((await run(() => control.fireEvent({ event: kind, account_id: account.id })))?.data ?? null);
  };
  return (
    <section className="card" aria-labelledby="test-event-title" data-testid="test-event">
      <div className="card-head">
        <h2 id="test-event-title">Send test event</h2>
        <span className="muted small">A realistic payload of the kind, to {hook.webhook_url}, with retries and signing as for real events.</span>
      </div>
      <div className="toolbar">
        <label>
          Kind{' '}
          <select value={kind} onChange={(e) => setKind(e.target.value as EmailEventKind)} aria-label="Test event kind">
            {enabled.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button primary" disabled={busy || enabled.length === 0} onClick={() => void send()}>
          {busy ? 'Sending…' : 'Send test event'}
        </button>
        {result?.delivery_id && (
          <span className="notice small" data-testid="test-event-result">
            Sent {kind}: <Link to={`/deliveries/${result.delivery_id}`}>delivery {result.delivery_id}</Link>
          </span>
        )}
        {result && !result.sent && <span className="muted small">Not sent: {result.reason}</span>}
      </div>
      {error && <p className="error">{error}</p>}
    </section>
  );
}
