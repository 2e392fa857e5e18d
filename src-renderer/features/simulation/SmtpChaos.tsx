import { useCallback, useEffect, useState } from 'react';
import type { ChaosState, ChaosTriggers } from '../../../src-shared/schemas/mailpit';
import { control, describeError } from '../../api/clients';

/** The three triggers, in the order of an SMTP session, with the command each answers. */
const TRIGGERS: Array<[keyof ChaosTriggers, string]> = [
  ['Authentication', 'AUTH'],
  ['Sender', 'MAIL FROM'],
  ['Recipient', 'RCPT TO'],
];

/**
 * Mailpit's chaos for the SMTP sink (`--enable-chaos`): each command refused with a code at a
 * probability, to see how an app handles a refusal. Saving replaces every trigger, as Mailpit does.
 */
export function SmtpChaos() {
  const [state, setState] = useState<ChaosState | null>(null);
  const [draft, setDraft] = useState<ChaosTriggers | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const load = useCallback(async () => {
    try {
      const answer = (await control.getChaos()).data;
      setState(answer);
      setDraft(answer.triggers);
    } catch (err) {
      setError(describeError(err));
    }
  }, []);
  useEffect(() => void load(), [load]);
  const edit = (kind: keyof ChaosTriggers, field: 'ErrorCode' | 'Probability', value: string) => {
    setSaved(false);
    setDraft((d) => d && { ...d, [kind]: { ...d[kind], [field]: Number(value) } });
  };
  const save = async (triggers: Partial<ChaosTriggers>) => {
    setError(null);
    try {
      const answer = (await control.setChaos(triggers)).data;
      setState(answer);
      setDraft(answer.triggers);
      setSaved(true);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section className="card" aria-labelledby="chaos-title">
      <div className="card-head">
        <h2 id="chaos-title">SMTP chaos</h2>
        <span className="muted small">Mailpit's failure injection: the SMTP sink refuses a command with a code, at a probability.</span>
      </div>
      {state && !state.enabled && (
        <p className="muted" data-testid="chaos-off">
          Chaos is not enabled: start Mailyard with <code>--enable-chaos</code> (or <code>MAILYARD_ENABLE_CHAOS=1</code>).
        </p>
      )}
      {state?.enabled && draft && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save(draft);
          }}
        >
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Trigger</th>
                <th scope="col">Refuses</th>
                <th scope="col">Reply code</th>
                <th scope="col">Probability (%)</th>
              </tr>
            </thead>
            <tbody>
              {TRIGGERS.map(([kind, command]) => (
                <tr key={kind}>
                  <th scope="row">{kind}</th>
                  <td>
                    <code>{command}</code>
                  </td>
                  <td>
                    <input
                      className="input narrow"
                      type="number"
                      min={400}
                      max={599}
                      aria-label={`${kind} reply code`}
                      value={draft[kind].ErrorCode}
                      onChange={(e) => edit(kind, 'ErrorCode', e.target.value)}
                    />
                  </td>
                  <td>
                    <input
                      className="input narrow"
                      type="number"
                      min={0}
                      max={100}
                      aria-label={`${kind} probability`}
                      value={draft[kind].Probability}
                      onChange={(e) => edit(kind, 'Probability', e.target.value)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="toolbar">
            <button type="submit" className="button primary">
              Save triggers
            </button>
            <button type="button" className="button" onClick={() => void save({})}>
              All off
            </button>
            {saved && (
              <span className="muted small" role="status">
                Saved: {TRIGGERS.filter(([k]) => state.triggers[k].Probability > 0).length} of 3 triggers on.
              </span>
            )}
          </div>
        </form>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
