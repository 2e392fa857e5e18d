import { useState } from 'react';
import type { DeliveryDetail } from '../../../src-shared/schemas/dispatch';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { navigate } from '../../router';

/** The text a JSON object reads as, or why it is not one. */
function parseObject(text: string): { value: Record<string, unknown> } | { problem: string } {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { value: value as Record<string, unknown> }
      : { problem: 'The payload must be a JSON object' };
  } catch (err) {
    return { problem: `Not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * "Edit and resend": the payload in an editor; sending makes a new delivery of the edited body to the
 * same target (its own webhook-id: a new event to the receiver, which should act on it), signed when it
 * is sent, and opens it.
 */
export function EditResend({ d, onClose }: { d: DeliveryDetail; onClose: () => void }) {
  const [text, setText] = useState(() => JSON.stringify(d.payload, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const { busy, error, run } = useRun();
  const send = async () => {
    const parsed = parseObject(text);
    if ('problem' in parsed) return setProblem(parsed.problem);
    setProblem(null);
    const res = await run(() => control.resendDelivery(d.id, { payload: parsed.value }));
    if (res) navigate(`/deliveries/${res.data.id}`);
  };
  return (
    <section className="edit-resend" aria-label="Edit and resend" data-testid="edit-resend">
      <p className="muted small">
        Sent as a new delivery to <code>{d.target.url}</code>, with its own webhook-id and retries, signed when it is sent: a new event to your receiver (under
        this delivery's webhook-id it would be dropped as a duplicate). The body is sent exactly as written here.
      </p>
      <textarea value={text} onChange={(e) => setText(e.target.value)} rows={14} spellCheck={false} aria-label="Payload to resend" className="mono" />
      <div className="toolbar">
        <button type="button" className="button primary" disabled={busy} onClick={() => void send()}>
          {busy ? 'Sending…' : 'Send edited payload'}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        {(problem ?? error) && (
          <span className="error small" role="alert">
            {problem ?? error}
          </span>
        )}
      </div>
    </section>
  );
}
