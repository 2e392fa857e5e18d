import { type FormEvent, useEffect, useState } from 'react';
import type { DnsRecord, EmulatorDomain } from '../../../src-shared/schemas/domains';
import { useChosenAccount } from '../../components/AccountSelect';
import { CopyButton } from '../../components/CopyButton';
import { useDomains } from '../../stores/domains-store';

function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

/** The records to publish, by name as the service gives them: the sending ones, then the receiving one (MX) when listed. */
function recordsOf(d: EmulatorDomain): Array<[string, DnsRecord]> {
  return [...Object.entries(d.sending_records), ...Object.entries(d.receiving_records)].filter((e): e is [string, DnsRecord] => e[1] !== undefined);
}

function AddDomainForm() {
  const { accounts, add, busy } = useDomains();
  const [domain, setDomain] = useState('');
  const [selector, setSelector] = useState('');
  const [account] = useChosenAccount(accounts);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (account && (await add(account.id, domain, selector))) {
      setDomain('');
      setSelector('');
    }
  };
  return (
    <form className="card form-row" onSubmit={(e) => void submit(e)} aria-labelledby="add-domain">
      <h2 id="add-domain">Add a sending domain</h2>
      <label>
        Domain <input className="input" value={domain} onChange={(e) => setDomain(e.target.value)} placeholder="mail.example.com" required />
      </label>
      <label>
        DKIM selector <input className="input" value={selector} onChange={(e) => setSelector(e.target.value)} placeholder="mailyard" />
      </label>
      <button className="button primary" type="submit" disabled={busy === 'add' || !account}>
        Add domain
      </button>
    </form>
  );
}

function OutcomeControl({ d }: { d: EmulatorDomain }) {
  const { setOutcome, busy } = useDomains();
  const [outcome, setOutcomeValue] = useState<'verified' | 'failed'>(d.verification.outcome);
  const [reason, setReason] = useState(d.verification.outcome === 'failed' ? (d.verification.reason ?? '') : '');
  const key = `outcome:${d.account_id}:${d.domain}`;
  return (
    <form
      className="form-row"
      aria-label={`Verification outcome of ${d.domain}`}
      onSubmit={(e) => {
        e.preventDefault();
        void setOutcome(d.account_id, d.domain, outcome, reason);
      }}
    >
      <label>
        Next verification{' '}
        <select className="input" value={outcome} onChange={(e) => setOutcomeValue(e.target.value as 'verified' | 'failed')}>
          <option value="verified">verified</option>
          <option value="failed">failed</option>
        </select>
      </label>
      {outcome === 'failed' && (
        <label>
          Reason <input className="input wide" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="SPF record missing" maxLength={500} />
        </label>
      )}
      <button className="button" type="submit" disabled={busy === key}>
        Set outcome
      </button>
      {/* The reason is in the field above (and on the card once verified): not repeated here. */}
      <span className="muted">now: {d.verification.outcome}</span>
    </form>
  );
}

function DomainCard({ d, showAccount }: { d: EmulatorDomain; showAccount: boolean }) {
  const { verify, remove, busy, accounts } = useDomains();
  const title = d.domain_unicode === d.domain ? d.domain : `${d.domain_unicode} (${d.domain})`;
  // A reason every failed record shares (a failure set on the emulator) is shown once, on the card;
  // records with reasons of their own (real DNS) show them in their rows instead.
  const records = recordsOf(d);
  const shared = d.reason !== null && records.every(([, r]) => r.status !== 'failed' || !r.reason || r.reason === d.reason);
  return (
    <section className="card" aria-label={`Domain ${d.domain}`} data-testid={`domain-${d.domain}`}>
      <div className="card-head">
        <h2>{title}</h2>
        <StatusBadge status={d.status} />
        {showAccount && <span className="muted">{accounts.find((a) => a.id === d.account_id)?.name ?? d.account_id}</span>}
        <span className="spacer" />
        <button
          type="button"
          className="button primary"
          disabled={busy === `verify:${d.account_id}:${d.domain}`}
          onClick={() => void verify(d.account_id, d.domain)}
        >
          Verify now
        </button>
        <button
          type="button"
          className="button danger"
          disabled={busy === `delete:${d.account_id}:${d.domain}`}
          onClick={() => {
            if (window.confirm(`Delete ${d.domain} and its DKIM key?`)) void remove(d.account_id, d.domain);
          }}
        >
          Delete
        </button>
      </div>
      {d.reason && (
        <p className="error" data-testid="domain-reason">
          {shared ? d.reason : 'The records marked failed below did not check out.'}
        </p>
      )}
      <p data-testid="domain-mailer-id">
        <span className="muted">mailer_id</span> <code>{d.mailer_id}</code> <CopyButton text={d.mailer_id} label="Copy mailer_id" />
      </p>
      <p className="muted">
        Added {d.created_at}
        {d.checked_at ? ` · checked ${d.checked_at}` : ' · not checked yet'}
        {d.verified_at ? ` · verified ${d.verified_at}` : ''}
      </p>
      <table className="table records">
        <thead>
          <tr>
            <th>Record</th>
            <th>Type</th>
            <th>Host</th>
            <th>Value</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {records.map(([name, r]) => (
            <tr key={name} data-testid={`record-${name}`}>
              <td>
                <code>{name}</code>
              </td>
              <td>{r.type}</td>
              <td>
                <code>{r.key}</code> <CopyButton text={r.key} label="Copy host" />
              </td>
              <td>
                <code className="record-value">{r.value}</code> <CopyButton text={r.value} label="Copy value" />
              </td>
              <td>
                <StatusBadge status={r.status} />
                {r.reason && !shared && <div className="muted small">{r.reason}</div>}
                {r.found && r.found.length > 0 && <div className="muted small">found: {r.found.join(' | ')}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <OutcomeControl key={`${d.verification.outcome}:${d.verification.reason ?? ''}`} d={d} />
      <details>
        <summary>History ({d.checks.length})</summary>
        {d.checks.length === 0 ? (
          <p className="muted">No verification yet.</p>
        ) : (
          <ol className="history">
            {d.checks.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the check history as read, replaced whole; two checks may share a time
              <li key={`${c.checked_at}-${i}`}>
                <code>{c.checked_at}</code> <StatusBadge status={c.status} /> <span className="muted">{c.mode}</span>
                {c.reason ? <span className="muted"> · {c.reason}</span> : null}
              </li>
            ))}
          </ol>
        )}
      </details>
    </section>
  );
}

/** Sending domains: the records to publish, verification and its outcome, history. */
export function Domains() {
  const { domains, accounts, loading, error, notice, noticeTone, load } = useDomains();
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <main>
      <AddDomainForm />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p className={noticeTone === 'warn' ? 'warn' : 'notice'} aria-live="polite" data-testid="notice">
          {notice}
        </p>
      )}
      {loading && <p className="muted">Loading…</p>}
      {!loading && domains.length === 0 && (
        <p className="muted">No sending domains yet. Add one, publish its records, then verify it: mail from a verified domain is DKIM-signed.</p>
      )}
      {domains.map((d) => (
        <DomainCard key={`${d.account_id}:${d.domain}`} d={d} showAccount={accounts.length > 1} />
      ))}
    </main>
  );
}
