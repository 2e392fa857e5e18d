import { useCallback, useEffect, useState } from 'react';
import type { InboundMessageRecord } from '../../../src-shared/schemas/inbound';
import { control, describeError } from '../../api/clients';
import { live } from '../../api/live';
import { Link } from '../../components/Link';
import { Time } from '../../components/Time';
import { useSearchParam } from '../../router';
import { DeliveriesViewPane } from './Endpoints';
import { InboundRule } from './InboundRule';

/** The newest inbound emails shown (the control API answers at most 500). */
const SHOWN = 200;

/**
 * Mail for routed domains as inbound routing took it: each recipient accepted (with the delivery that
 * posts it) or refused (with why, which the SMTP reply also said), by the inbound guide's rule that
 * decided. A refused email has no delivery: this is where it shows.
 */
export function InboundMail() {
  // The header's account (`?account=`), as the rest of Deliveries follows it; none: every account's.
  const account = useSearchParam('account');
  const [messages, setMessages] = useState<InboundMessageRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setMessages((await control.listInboundMessages({ limit: SHOWN, ...(account ? { account_id: account } : {}) })).data.messages);
      setError(null);
    } catch (err) {
      setError(describeError(err));
    }
  }, [account]);
  useEffect(() => {
    void load();
    // Each one as routing decides it: the newest first, as the list orders them.
    const off = live.on('inbound.message', (m) => {
      if (account && m.account_id !== account) return;
      setMessages((ms) => (ms === null ? ms : [m, ...ms.filter((x) => x.ref_id !== m.ref_id)].slice(0, SHOWN)));
    });
    const offReconnect = live.onReconnect(() => void load());
    return () => {
      off();
      offReconnect();
    };
  }, [load, account]);
  return (
    <DeliveriesViewPane
      view="inbound"
      label="Inbound mail"
      error={error}
      help={
        <p>
          Each recipient at a domain with an inbound route, newest first (the latest {SHOWN}), and the rule of the inbound guide that decided it: Wildcard
          Domain, Strict Reply Mode, Username Match, else Reject. Refused mail is not posted nor kept: its sender, subject and why are.
        </p>
      }
    >
      {messages !== null && messages.length === 0 ? (
        <p className="muted pad" data-testid="inbound-empty">
          No inbound mail yet: mail to a domain with an inbound route (over SMTP, or <code>POST /emulator/inbound</code>) shows here, accepted or refused.
        </p>
      ) : (
        <div className="endpoints-scroll">
          {/* The endpoints' table look. */}
          <table className="endpoints" data-testid="inbound-list">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">To</th>
                <th scope="col">From and subject</th>
                <th scope="col">Inbound routing</th>
              </tr>
            </thead>
            <tbody>
              {(messages ?? []).map((m) => (
                <tr key={m.ref_id} data-testid="inbound-message">
                  <td className="nowrap">
                    <Time emulator={m.created_at} /> <span className="badge">{m.source.toUpperCase()}</span>
                  </td>
                  <td>{m.recipient}</td>
                  <td>
                    {m.from_email || <span className="muted">no sender</span>}
                    <div className="muted small">{m.subject || '(no subject)'}</div>
                  </td>
                  <td>
                    <InboundRule m={m} />
                    {m.delivery_id !== null && (
                      <div className="small">
                        <Link to={`/deliveries/${m.delivery_id}`}>its post to the route</Link>
                      </div>
                    )}
                    {m.reason !== null && <div className="muted small">{m.reason}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </DeliveriesViewPane>
  );
}
