import { type ChangeEvent, useRef, useState } from 'react';
import type { ScenarioProblem } from '../../api/scenarios';

/** A small traffic scenario to start from (the format: docs/scenarios-report.md and the engine's docs). */
export const STARTER = `version: 1
name: Demo traffic
clock: { speed: 60 }
duration: 5m
traffic:
  count: 20
  rate: 5/s
  subject: Hello from a scenario
  html: <p>Hello from Mailyard</p>
  to: user{n}@example.test
outcomes:
  - match: { share: 0.1 }
    fate: hard_bounce
expect:
  app: { maxSendsPerRecipient: 1 }
# The receiver's expectations need a webhook to judge:
# webhook: { url: "http://127.0.0.1:3000/webhooks/email" }
#   and under expect: receiver: { acknowledgedAll: true, noGiveUps: true }
`;

/** "line 3, column 5", "line 3", or nothing. */
function place(p: ScenarioProblem): string {
  if (p.line === null) return '';
  return p.column === null ? `Line ${p.line}` : `Line ${p.line}, column ${p.column}`;
}

/** Selects line `line` (from 1) of the textarea, so the person sees where the problem is. */
function selectLine(area: HTMLTextAreaElement, line: number): void {
  const lines = area.value.split('\n');
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  const end = start + (lines[line - 1]?.length ?? 0);
  area.focus();
  area.setSelectionRange(start, end);
  const lineHeight = area.scrollHeight / Math.max(1, lines.length);
  area.scrollTop = Math.max(0, (line - 3) * lineHeight);
}

export function ScenarioEditor({
  source,
  file,
  problems,
  onChange,
}: {
  source: string;
  file: string | null;
  problems: ScenarioProblem[];
  onChange: (source: string, file: string | null) => void;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const open = async (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    e.target.value = '';
    if (!f) return;
    try {
      setReadError(null);
      onChange(await f.text(), f.name);
    } catch (err) {
      setReadError(`${f.name} cannot be read: ${(err as Error).message}`);
    }
  };
  return (
    <div className="scenario-editor">
      <div className="form-row">
        <label className="button small">
          Open a scenario file…
          <input
            type="file"
            accept=".yaml,.yml,.json,application/json,text/yaml"
            className="visually-hidden"
            onChange={(e) => void open(e)}
            data-testid="scenario-file"
          />
        </label>
        <span className="muted small" data-testid="scenario-file-name">
          {file ? (
            <>
              File: <code>{file}</code>
            </>
          ) : (
            'Not saved to a file: edit the text below, YAML or JSON.'
          )}
        </span>
      </div>
      {readError && (
        <p className="error" role="alert">
          {readError}
        </p>
      )}
      <div className="scenario-source">
        <textarea
          ref={area}
          className="input code scenario-text"
          aria-label="Scenario (YAML or JSON)"
          spellCheck={false}
          rows={18}
          value={source}
          onChange={(e) => onChange(e.target.value, file)}
          {...(problems.length ? { 'aria-invalid': true, 'aria-describedby': 'scenario-problems' } : {})}
        />
        {problems.length > 0 && (
          <ul className="scenario-problems" id="scenario-problems" aria-label="Problems in the scenario" data-testid="scenario-problems">
            {problems.map((p, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the file's problems, replaced whole at each check
              <li key={i} className="field-error">
                {p.line !== null ? (
                  <button type="button" className="linkish" onClick={() => area.current && selectLine(area.current, p.line ?? 1)}>
                    {place(p)}
                  </button>
                ) : null}
                {p.line !== null ? ': ' : ''}
                {p.path ? <code>{p.path}</code> : null}
                {p.path ? ' ' : ''}
                {p.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
