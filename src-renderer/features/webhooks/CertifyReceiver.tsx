import { type FormEvent, useState } from 'react';
import { DUPLICATES_RULE } from '../../../src-shared/duplicates';
import { EMAIL_EVENT_KINDS, WEBHOOK_METHODS, type WebhookMethod } from '../../../src-shared/events';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { RECEIVER_CHECK_LIMITS, type ReceiverCheckReport, type ReceiverCheckResult } from '../../../src-shared/schemas/receiver-check';
import type { WebhookRecord } from '../../../src-shared/schemas/webhooks';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';

const TONE: Record<ReceiverCheckResult['status'], string> = { passed: 'tone-ok', failed: 'tone-bad', skipped: 'tone-muted' };

/** `Name: value` lines as headers; lines without a colon are left out. */
function headersOf(text: string): Record<string, string> {
  const pairs = text
    .split('\n')
    .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()] as const)
    .filter(([name]) => name !== '');
  return Object.fromEntries(pairs);
}

/** What a check that judges processing saw of it: the effects count's growth against a correct receiver's, or that it was not observed. */
function processedWords(processed: NonNullable<ReceiverCheckResult['processed']>): string {
  const expected = `a correct receiver: +${processed.expected}`;
  return processed.observed === null ? `Processing not observed (${expected})` : `Processed +${processed.observed} (${expected})`;
}

/** The fold's label: how many requests the check sent, or for the quick-ack check how many answers it graded. */
function foldLabel(check: ReceiverCheckResult): string {
  const n = check.exchanges.length;
  if (check.id === 'quick-ack') return `${n} answer${n === 1 ? '' : 's'} graded (the event checks')`;
  return `${n} request${n === 1 ? '' : 's'}`;
}

function CheckRow({ check }: { check: ReceiverCheckResult }) {
  return (
    <li className="receiver-check" data-testid={`receiver-check-${check.id}`} data-status={check.status}>
      <div className="receiver-check-head">
        <span className={`pill ${TONE[check.status]}`}>{check.status}</span>
        <code className="small">{check.id}</code>
        <span>{check.title}</span>
      </div>
      <p className="muted small">Expected: {check.expected}</p>
      {check.detail && <p className={check.status === 'failed' ? 'error small' : 'muted small'}>{check.detail}</p>}
      {check.processed && check.status !== 'skipped' && (
        <p className={`small ${check.processed.observed === null ? 'muted' : ''}`} data-testid={`receiver-processed-${check.id}`}>
          {processedWords(check.processed)}
        </p>
      )}
      {check.exchanges.length > 0 && (
        <details>
          <summary className="small" data-testid={`receiver-fold-${check.id}`}>
            {foldLabel(check)}:{' '}
            {check.exchanges.map((e) => `${e.response ? e.response.status : (e.error?.code ?? 'no answer')} in ${e.duration_ms} ms`).join(', ')}
          </summary>
          {check.exchanges.map((e, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the exchanges are a fixed record of one run; two of a check may share a label
            <div key={i} className="receiver-exchange">
              <p className="small">
                <strong>{e.label}</strong>: {e.request.method} {e.request.url}
              </p>
              <pre className="small">
                {Object.entries(e.request.headers)
                  .map(([n, v]) => `${n}: ${v}`)
                  .join('\n')}
                {`\n\n${e.request.body}`}
              </pre>
              <p className="small">
                {e.response ? `Answered ${e.response.status}: ${e.response.body || '(empty body)'}` : `No answer: ${e.error?.message ?? ''}`}
              </p>
            </div>
          ))}
        </details>
      )}
    </li>
  );
}

/** The verdict, naming the failed checks, then the checks, the failed ones first. */
function Report({ report }: { report: ReceiverCheckReport }) {
  const failed = report.checks.filter((c) => c.status === 'failed');
  const ordered = [...failed, ...report.checks.filter((c) => c.status !== 'failed')];
  const { passed, skipped } = report.counts;
  return (
    <div data-testid="receiver-report">
      <p className={report.passed ? 'notice' : 'error'} data-testid="receiver-verdict">
        {report.passed
          ? `Passed: ${passed} passed, 0 failed, ${skipped} skipped`
          : `Failed: ${failed.map((c) => c.id).join(', ')} (${failed.length} of ${report.checks.length} checks). ${passed} passed, ${skipped} skipped`}{' '}
        ({report.method} {report.url}, {report.duration_ms} ms).
        {report.effects_url === null && ' Processing was not observed (no effects URL): the duplicate checks graded the answers only.'}
      </p>
      <ul className="receiver-checks">
        {ordered.map((c) => (
          <CheckRow key={c.id} check={c} />
        ))}
      </ul>
    </div>
  );
}

/**
 * "Certify your receiver": sends the URL the person names what the service will send it, and shows each
 * check graded with its requests and answers. Starts from the account's email-event webhook.
 */
export function CertifyReceiver({ account, webhook }: { account: AccountRecord; webhook: WebhookRecord | undefined }) {
  const [url, setUrl] = useState(webhook?.webhook_url ?? '');
  const [method, setMethod] = useState<WebhookMethod>(webhook?.method ?? 'POST');
  const [headers, setHeaders] = useState(
    Object.entries(webhook?.headers ?? {})
      .map(([n, v]) => `${n}: ${v}`)
      .join('\n'),
  );
  const [signed, setSigned] = useState(account.signing_secret !== null);
  const [ackWithin, setAckWithin] = useState<number>(RECEIVER_CHECK_LIMITS.defaultAckWithinMs);
  const [effectsUrl, setEffectsUrl] = useState('');
  const [report, setReport] = useState<ReceiverCheckReport | null>(null);
  const { busy, error, run } = useRun();
  // The subscription's kinds: the account's email-event webhook's, every kind when it has none.
  const enabled = EMAIL_EVENT_KINDS.filter((k) => webhook?.webhook_options?.events?.[k] === true);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setReport(null);
    void run(async () => {
      const body = {
        url,
        method,
        headers: headersOf(headers),
        ack_within_ms: ackWithin,
        ...(effectsUrl.trim() !== '' ? { effects_url: effectsUrl.trim() } : {}),
        ...(enabled.length > 0 ? { events: enabled } : {}),
        ...(signed && account.signing_secret ? { signing_secret: account.signing_secret } : {}),
      };
      setReport((await control.checkReceiver(body)).data);
    });
  };

  return (
    <section className="card certify" aria-labelledby="certify-title" data-testid="certify-receiver">
      <div className="card-head">
        <h2 id="certify-title">Certify your receiver</h2>
        <span className="muted small">
          Sends your endpoint what the service will: every event kind, a duplicate, events out of order, two events of one kind for one message, unknown fields,
          a missing and a wrong secret.
        </span>
      </div>
      <form onSubmit={submit} className="grid2">
        <label className="field span2">
          <span>Receiver URL</span>
          <input className="input" aria-label="Receiver URL" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:3000/hooks" />
        </label>
        <label className="field">
          <span>Method</span>
          <select className="input" aria-label="Receiver method" value={method} onChange={(e) => setMethod(e.target.value as WebhookMethod)}>
            {WEBHOOK_METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Acknowledged within (ms)</span>
          <input
            className="input"
            type="number"
            aria-label="Acknowledged within (ms)"
            min={RECEIVER_CHECK_LIMITS.minAckWithinMs}
            max={RECEIVER_CHECK_LIMITS.maxAckWithinMs}
            value={ackWithin}
            onChange={(e) => setAckWithin(Number(e.target.value))}
          />
        </label>
        <label className="field span2">
          <span>Effects URL (optional)</span>
          <input className="input" value={effectsUrl} onChange={(e) => setEffectsUrl(e.target.value)} placeholder="http://127.0.0.1:3000/test/processed" />
          <span className="muted small">
            A GET your receiver answers with {'{"processed": N}'}, the events it has acted on so far. With it, the duplicate and the pairs of different events
            are graded on what your receiver did with them, not only on its answers. {DUPLICATES_RULE}
          </span>
        </label>
        <label className="field span2">
          <span>Receiver headers</span>
          <textarea
            className="input"
            aria-label="Receiver headers"
            aria-describedby="certify-headers-hint"
            rows={2}
            value={headers}
            onChange={(e) => setHeaders(e.target.value)}
          />
          <span className="muted small" id="certify-headers-hint">
            One "Name: value" a line; the first named like a secret is the one checked.
          </span>
        </label>
        {account.signing_secret && (
          <label className="toggle span2">
            <input type="checkbox" checked={signed} onChange={(e) => setSigned(e.target.checked)} /> Sign with this account's secret (and check bad signatures
            and stale timestamps)
          </label>
        )}
        <div className="toolbar span2">
          <button type="submit" className="button primary" disabled={busy || url.trim() === ''}>
            {busy ? 'Checking…' : 'Run the checks'}
          </button>
          <span className="muted small">
            {enabled.length > 0 ? `The webhook's ${enabled.length} event kinds` : `All ${EMAIL_EVENT_KINDS.length} event kinds`}. Point it at your own receiver:
            it sends about twenty requests, one at a time.
          </span>
        </div>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {report && <Report report={report} />}
    </section>
  );
}
