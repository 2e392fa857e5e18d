import { useEffect, useState } from 'react';
import type { MailerRecord } from '../../../src-shared/schemas/mailers';
import type { MessageDetail, ReleaseResult } from '../../../src-shared/schemas/messages';
import { control, describeError } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { Link } from '../../components/Link';

type SmtpMailer = MailerRecord & { account_id: string };

/** Splits "a@x.org, b@y.org" (commas, semicolons or spaces) into addresses. */
function addresses(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((a) => a.trim())
    .filter(Boolean);
}

/**
 * Sends the captured message, byte for byte, to real recipients through one of the SMTP mailers:
 * to see it in a real mail client. Its events and log stay as they are.
 */
export function ReleaseMessage({ d }: { d: MessageDetail }) {
  const [open, setOpen] = useState(false);
  const [mailers, setMailers] = useState<SmtpMailer[] | null>(null);
  const [mailerId, setMailerId] = useState('');
  const [to, setTo] = useState(d.recipient.email);
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | null>(null);
  const { busy, error, run, clearError } = useRun();
  // The server's answer, or why the release (or the list of mailers) failed.
  const result = error ? { ok: false, text: error } : answer;

  // biome-ignore lint/correctness/useExhaustiveDependencies: another copy opened (d.id) starts the form afresh
  useEffect(() => {
    setOpen(false);
    setAnswer(null);
    clearError();
    setTo(d.recipient.email);
  }, [d.id, d.recipient.email, clearError]);

  useEffect(() => {
    if (!open || mailers !== null) return;
    control.listEmulatorMailers().then(
      (res) => {
        const smtp = res.data.filter((m) => m.config_type === 'smtp');
        setMailers(smtp);
        // The message's own account's mailer first, if it has one.
        setMailerId((smtp.find((m) => m.account_id === d.account_id) ?? smtp[0])?.mailer_id ?? '');
      },
      (err: unknown) => setAnswer({ ok: false, text: describeError(err) }),
    );
  }, [open, mailers, d.account_id]);

  const release = () =>
    run(async () => {
      setAnswer(null);
      const list = addresses(to);
      const res = await control.releaseMessage(d.id, { mailer_id: mailerId, ...(list.length > 0 ? { to: list } : {}) });
      const r: ReleaseResult = res.data;
      setAnswer({ ok: r.ok, text: `${res.message} (${r.duration_ms} ms)` });
    });

  if (!open) {
    return (
      <button type="button" className="button" onClick={() => setOpen(true)}>
        Release…
      </button>
    );
  }
  return (
    <form
      className="fire-inline"
      aria-label="Release the message"
      onSubmit={(e) => {
        e.preventDefault();
        void release();
      }}
    >
      {mailers !== null && mailers.length === 0 ? (
        <span className="muted small">
          Releasing sends this message for real through an SMTP mailer. <Link to="/mailers">Add one first.</Link>
        </span>
      ) : (
        <>
          <label>
            Through{' '}
            <select className="input" aria-label="SMTP mailer" value={mailerId} onChange={(e) => setMailerId(e.target.value)} disabled={mailers === null}>
              {(mailers ?? []).map((m) => (
                <option key={m.mailer_id} value={m.mailer_id}>
                  {m.name} ({m.config.host}:{m.config.port})
                </option>
              ))}
            </select>
          </label>
          <label>
            to <input className="input" aria-label="Release to" value={to} onChange={(e) => setTo(e.target.value)} size={28} />
          </label>
          <button type="submit" className="button primary" disabled={busy || !mailerId}>
            Release
          </button>
        </>
      )}
      <button type="button" className="button" onClick={() => setOpen(false)}>
        Close
      </button>
      {result && (
        <span className={`${result.ok ? 'notice' : 'error'} small`} role="status" data-testid="release-result">
          {result.text}
        </span>
      )}
    </form>
  );
}
