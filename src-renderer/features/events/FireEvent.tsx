import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type { EmailEventKind } from '../../../src-shared/events';
import { eventFieldsOf } from '../../../src-shared/payload-format';
import type { FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { MessageSummary } from '../../../src-shared/schemas/messages';
import { control, describeError, fieldErrors } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { useChosenAccount, useChosenGone } from '../../components/AccountSelect';
import { EventKindSelect } from '../../components/EventKindSelect';
import { describedBy, FieldMessage, problemsAt } from '../../components/FieldError';
import { FiredEvent } from '../../components/FiredEvent';
import { JsonView } from '../../components/JsonView';
import { Link } from '../../components/Link';
import { SendLink } from '../../components/SendLink';
import { useSearchParam } from '../../router';
import { useOverview } from '../../stores/overview-store';

type Result = z.output<typeof FireEventResult>;

/** The sends among these copies, newest first: each once, labelled with its recipients and subject. */
function recentSends(copies: MessageSummary[]): Array<{ ref_id: string; label: string }> {
  const sends = new Map<string, MessageSummary[]>();
  for (const m of copies) sends.set(m.ref_id, [...(sends.get(m.ref_id) ?? []), m]);
  return [...sends].map(([refId, of]) => {
    const to = of.length === 1 ? of[0]!.recipient.email : `${of[of.length - 1]!.recipient.email} and ${of.length - 1} more`;
    return { ref_id: refId, label: `${to} · ${of[0]!.subject}` };
  });
}

/** The recipient an event payload is about, when it names one (in either of the account's body shapes). */
function payloadRecipient(payload: Record<string, unknown>): string | null {
  const r = eventFieldsOf(payload).recipient as { email?: unknown } | undefined;
  return typeof r?.email === 'string' ? r.email : null;
}

function parseFields(text: string): { fields?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return { fields: {} };
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return { error: 'Field overrides must be a JSON object, e.g. {"campaign_id": "spring"}' };
    return { fields: v as Record<string, unknown> };
  } catch (err) {
    return { error: `Field overrides are not valid JSON: ${(err as Error).message}` };
  }
}

/** What the preview cannot show as it will be sent: the fields set at the moment it is sent. */
function stampNote(fields: Record<string, unknown>, storedSend: boolean): string {
  const refId = !storedSend && !('ref_id' in fields);
  const timestamp = !('timestamp' in fields);
  if (refId && timestamp) return 'ref_id and timestamp are set when it is sent: a new ref_id is generated and the timestamp is the emulator clock then.';
  if (refId) return 'ref_id is set when it is sent: a new one is generated.';
  if (timestamp) return 'timestamp is set when it is sent (the emulator clock then); the rest is sent as shown.';
  return 'Sent as shown.';
}

/** Stripe's `trigger` for email: any of the email event kinds, previewed, through the same filter and dispatcher. */
export function FireEvent() {
  const { accounts } = useOverview();
  const params = new URLSearchParams(window.location.search);
  const [kind, setKind] = useState<EmailEventKind>((params.get('event') as EmailEventKind | null) ?? 'delivery');
  const [target, setTarget] = useState<'message' | 'recipient'>(params.get('ref_id') ? 'message' : 'recipient');
  const [refId, setRefId] = useState(params.get('ref_id') ?? '');
  // Which recipient's copy of the send (the send's first copy when empty).
  const [copyRecipient, setCopyRecipient] = useState(params.get('recipient') ?? '');
  const [recipient, setRecipient] = useState('ann@example.com');
  // The header's account: its webhook filter applies (a stored message's own account when none is chosen).
  const [chosen] = useChosenAccount(accounts);
  const accountId = useSearchParam('account') && chosen ? chosen.id : '';
  // The chosen account was deleted: nothing is fired until another is chosen (it would go out as none, or another).
  const accountGone = useChosenGone() !== null;
  const [fieldsText, setFieldsText] = useState('');
  const [preview, setPreview] = useState<Result | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  // What the emulator refused in the overrides (`bounce_type must be "hard" or "soft"`), said beside them.
  const [overridesRefused, setOverridesRefused] = useState<string | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const { busy, error, run } = useRun();
  const parsed = parseFields(fieldsText);
  // The latest sends, offered in the ref_id field (a send of several recipients once, with its recipients).
  const [recent, setRecent] = useState<Array<{ ref_id: string; label: string }>>([]);
  useEffect(() => {
    control.listMessages({ limit: 50 }).then(
      (res) => setRecent(recentSends(res.data.messages)),
      () => setRecent([]),
    );
  }, []);

  const body = () => ({
    event: kind,
    ...(accountId ? { account_id: accountId } : {}),
    ...(target === 'message' && refId.trim() ? { ref_id: refId.trim() } : {}),
    ...(target === 'message' && refId.trim() && copyRecipient.trim() ? { recipient: copyRecipient.trim() } : {}),
    ...(target === 'recipient' && recipient.trim() ? { recipient: recipient.trim() } : {}),
    ...(parsed.fields && Object.keys(parsed.fields).length ? { fields: parsed.fields } : {}),
  });

  // The payload preview: a dry run on the emulator (nothing is sent or recorded), after a short pause.
  // It runs again when any input changes: `key` is all of them.
  const key = JSON.stringify([kind, target, refId, copyRecipient, recipient, accountId, fieldsText]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for every input body() and parsed are made of (new objects each render, which would fire a dry run each render)
  useEffect(() => {
    // Overrides that are not JSON are said beside their field; the preview waits for them.
    if (parsed.error) {
      setPreviewError('No preview until the field overrides are fixed.');
      setOverridesRefused(null);
      return;
    }
    let gone = false;
    const t = window.setTimeout(() => {
      control.fireEvent({ ...body(), dry_run: true }).then(
        (res) => {
          if (gone) return;
          setPreview(res.data);
          setPreviewError(null);
          setOverridesRefused(null);
        },
        (err: unknown) => {
          if (gone) return;
          const refused = problemsAt(fieldErrors(err), 'fields');
          setOverridesRefused(
            refused.length ? refused.map((e) => (e.path === 'fields' ? e.message : `${e.path.slice('fields.'.length)} ${e.message}`)).join('; ') : null,
          );
          setPreviewError(refused.length ? 'No preview until the field overrides are fixed.' : describeError(err));
        },
      );
    }, 200);
    return () => {
      gone = true;
      window.clearTimeout(t);
    };
  }, [key]);

  const fire = async () => {
    setResult(null);
    setResult((await run(() => control.fireEvent(body())))?.data ?? null);
  };

  return (
    <main className="wide two-col">
      <section className="card" aria-labelledby="fire-title">
        <h2 id="fire-title">Fire a synthetic event</h2>
        <p className="muted small">Goes through the account's EMAIL_EVENT webhook filter, the dispatcher and its retries, like a simulated one.</p>
        {/* biome-ignore lint/a11y/noLabelWithoutControl: EventKindSelect renders the <select> this label names */}
        <label className="field">
          <span>Event</span>
          <EventKindSelect label="Event kind" value={kind} onChange={setKind} />
        </label>
        <fieldset className="field">
          <legend>About</legend>
          <label>
            <input type="radio" name="target" checked={target === 'recipient'} onChange={() => setTarget('recipient')} /> a free recipient
          </label>{' '}
          <label>
            <input type="radio" name="target" checked={target === 'message'} onChange={() => setTarget('message')} /> a stored message
          </label>
          {target === 'recipient' ? (
            <input className="input" aria-label="Recipient" value={recipient} onChange={(e) => setRecipient(e.target.value)} />
          ) : (
            <>
              <input
                className="input"
                aria-label="Message ref_id"
                placeholder="ref_id of a send"
                list="recent-messages"
                value={refId}
                onChange={(e) => setRefId(e.target.value)}
              />
              <datalist id="recent-messages">
                {recent.map((m) => (
                  <option key={m.ref_id} value={m.ref_id}>
                    {m.label}
                  </option>
                ))}
              </datalist>
              <input
                className="input"
                aria-label="Recipient of the send"
                placeholder="recipient (the send's first one when empty)"
                value={copyRecipient}
                onChange={(e) => setCopyRecipient(e.target.value)}
              />
            </>
          )}
        </fieldset>
        {accounts.length > 1 && (
          <p className="muted small" data-testid="fire-account">
            Account (whose webhook filter applies): <span className="account-name">{chosen && accountId ? chosen.name : "the message's, or the default"}</span>,
            chosen at the top.
          </p>
        )}
        <label className="field">
          <span>Field overrides (JSON)</span>
          <textarea
            className="input code"
            rows={6}
            aria-label="Field overrides (JSON)"
            placeholder={'{"campaign_id": "spring", "bounce_type": "soft"}'}
            value={fieldsText}
            onChange={(e) => setFieldsText(e.target.value)}
            {...describedBy('overrides-error', Boolean(parsed.error ?? overridesRefused))}
          />
          {(parsed.error ?? overridesRefused) && (
            <FieldMessage id="overrides-error" testId="overrides-error">
              {parsed.error ?? overridesRefused}
            </FieldMessage>
          )}
        </label>
        <div className="toolbar">
          <button type="button" className="button primary" disabled={busy || Boolean(parsed.error) || accountGone} onClick={() => void fire()}>
            Fire {kind}
          </button>
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {result && (
          <p>
            <FiredEvent result={result}>
              {target === 'message' && refId.trim() && (
                <>
                  {' · '}
                  <SendLink refId={refId.trim()} recipient={payloadRecipient(result.payload) ?? (copyRecipient.trim() || null)}>
                    the message
                  </SendLink>
                </>
              )}
            </FiredEvent>
          </p>
        )}
      </section>
      <section className="card" aria-labelledby="preview-title">
        <h2 id="preview-title">Payload preview</h2>
        {preview && !previewError && (
          <p className={preview.sent ? 'notice small' : 'warn small'} data-testid="filter-verdict">
            {preview.sent ? 'The webhook filter will send this event.' : `The webhook filter will not send it: ${preview.reason}.`}
            {!preview.sent && (
              <>
                {' '}
                <Link to="/webhooks">Webhooks</Link>
              </>
            )}
          </p>
        )}
        {previewError ? (
          <p className="error">{previewError}</p>
        ) : preview ? (
          <JsonView value={preview.payload} testId="payload-preview" />
        ) : (
          <p className="muted">…</p>
        )}
        {preview && !previewError && (
          <p className="muted small" data-testid="preview-note">
            {stampNote(parsed.fields ?? {}, target === 'message' && refId.trim() !== '')}
          </p>
        )}
      </section>
    </main>
  );
}
