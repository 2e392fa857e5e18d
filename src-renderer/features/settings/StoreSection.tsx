import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { formatMaxAge, parseMaxAge } from '../../../src-shared/retention';
import type { StoreUsage } from '../../../src-shared/schemas/store';
import { control, describeError } from '../../api/clients';
import { live } from '../../api/live';
import { formatSize } from '../../components/size';
import { Time } from '../../components/Time';

/** `1 message`, `2 messages`, `20,000 messages`. */
const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/**
 * The store: how big it is, the retention limits in force (which can be changed here, kept for the
 * next start) and what they pruned. Follows the live stream's `store.pruned`.
 */
export function StoreSection() {
  const [usage, setUsage] = useState<StoreUsage | null>(null);
  const [maxMessages, setMaxMessages] = useState('');
  const [maxAge, setMaxAge] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const next = (await control.getStore()).data;
      setUsage(next);
      return next;
    } catch (err) {
      setError(describeError(err));
      return null;
    }
  }, []);
  useEffect(() => {
    void load().then((u) => {
      if (u === null) return;
      setMaxMessages(String(u.max_messages));
      setMaxAge(formatMaxAge(u.max_age_ms));
    });
    return live.on('store.pruned', () => void load());
  }, [load]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNotice(null);
    const messages = Number(maxMessages.trim());
    if (!/^\d+$/.test(maxMessages.trim())) return setError('Messages kept: a whole number (0: no limit)');
    let ageMs: number;
    try {
      ageMs = parseMaxAge(maxAge);
    } catch (err) {
      return setError(`Oldest kept: ${(err as Error).message}`);
    }
    try {
      const next = (await control.setRetention({ max_messages: messages, max_age_ms: ageMs })).data;
      setUsage(next);
      setNotice('Limits set: kept for the next start');
    } catch (err) {
      setError(describeError(err));
    }
  };

  if (usage === null) return null;
  const pruned = usage.pruned;
  return (
    <section className="card" aria-labelledby="store-title">
      <h2 id="store-title">Store</h2>
      <dl className="facts" data-testid="store-usage">
        <dt>Messages</dt>
        <dd>{usage.messages.toLocaleString('en')}</dd>
        <dt>Size</dt>
        <dd>
          {formatSize(usage.database_bytes + usage.wal_bytes)}{' '}
          <span className="muted">
            (database {formatSize(usage.database_bytes)}, write-ahead log {formatSize(usage.wal_bytes)}, {formatSize(usage.free_bytes)} free inside)
          </span>
        </dd>
        <dt>Limits</dt>
        <dd data-testid="store-limits">
          {usage.max_messages > 0 ? `the newest ${count(usage.max_messages, 'message', 'messages')}` : 'no limit on the number of messages'}
          {', '}
          {usage.max_age_ms > 0 ? `none older than ${formatMaxAge(usage.max_age_ms)}` : 'no limit on age'}
          <span className="muted"> (deliveries and catcher requests too)</span>
        </dd>
        <dt>Pruned</dt>
        <dd data-testid="store-pruned">
          {pruned.last_at === null ? (
            <span className="muted">nothing since the start</span>
          ) : (
            <>
              {count(pruned.copies, 'message', 'messages')}, {count(pruned.deliveries, 'delivery', 'deliveries')},{' '}
              {count(pruned.catcher_requests, 'catcher request', 'catcher requests')}, {count(pruned.inbound_messages, 'received message', 'received messages')}{' '}
              since the start; last <Time emulator={pruned.last_at} exact />
            </>
          )}
        </dd>
      </dl>
      <form className="form-row" onSubmit={(e) => void save(e)}>
        <label>
          Messages kept{' '}
          <input
            className="input"
            inputMode="numeric"
            aria-describedby="store-limits-hint"
            value={maxMessages}
            onChange={(e) => setMaxMessages(e.target.value)}
          />
        </label>
        <label>
          Oldest kept <input className="input" aria-describedby="store-limits-hint" value={maxAge} onChange={(e) => setMaxAge(e.target.value)} />
        </label>
        <button className="button" type="submit">
          Set limits
        </button>
        {error && <span className="error">{error}</span>}
        {notice && (
          <span className="notice" role="status">
            {notice}
          </span>
        )}
      </form>
      <p id="store-limits-hint" className="muted small">
        0 is no limit. An age is a number and a unit: 12h, 30d, 2w (emulator clock). The oldest messages beyond the limits are removed with their events,
        deliveries, tracking and search entries. <code>--max-messages</code> and <code>--max-age</code> given at start win over what is set here.
      </p>
      <p className="form-row">
        <a className="button" href="/emulator/snapshot" download>
          Download snapshot
        </a>
        <a className="button" href="/emulator/snapshot?secrets=false" download>
          Download without secrets
        </a>
        <span className="muted small">
          The whole state in one file: <code>mailyard serve --from-snapshot FILE</code> starts from it. It holds the API keys, signing secrets, DKIM keys and
          mailer passwords unless saved without secrets.
        </span>
      </p>
    </section>
  );
}
