import { useCallback, useEffect, useState } from 'react';
import type { EmailEventKind } from '../../../src-shared/events';
import { control, describeError, fieldErrors } from '../../api/clients';
import { EventKindSelect } from '../../components/EventKindSelect';
import { describedBy, FieldError, type FieldProblem, problemsAt, problemsElsewhere } from '../../components/FieldError';
import { EmulatorClock } from './EmulatorClock';
import { SmtpChaos } from './SmtpChaos';

interface DraftEvent {
  event: EmailEventKind;
  delay_ms: number;
  fields: string;
}
interface DraftRule {
  pattern: string;
  events: DraftEvent[];
}

interface Problem {
  message: string;
  errors: FieldProblem[];
}

/** A rule event's problem in words: `delay_ms` is "The delay ...", `fields.x` is "The field “x” ...". */
function eventWords(rest: string[], message: string): string {
  const [field, ...below] = rest;
  if (field === 'delay_ms') return `The delay ${message}`;
  if (field === 'event') return `The event ${message}`;
  if (field === 'fields') return below.length ? `The field “${below.join('.')}” ${message}` : `The fields ${message}`;
  return field ? `${field} ${message}` : message;
}

/** Which rules the problems are about: "the 1st rule's pattern, the 2nd rule's events". */
function marked(errors: FieldProblem[]): string {
  const where = new Set<string>();
  for (const e of errors) {
    const m = /^rules\.(\d+)(?:\.(pattern|events))?/.exec(e.path);
    if (m) where.add(`rule ${Number(m[1]) + 1}${m[2] ? (m[2] === 'pattern' ? ', its pattern' : ', its events') : ''}`);
  }
  return where.size ? `see ${[...where].join('; ')}, marked above` : 'see below';
}

function Rules() {
  const [rules, setRules] = useState<DraftRule[] | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const errs = error?.errors;
  const has = (path: string) => problemsAt(errs, path).length > 0;
  const load = useCallback(async () => {
    try {
      const res = await control.getRules();
      setRules(
        res.data.rules.map((r) => ({
          pattern: r.pattern,
          events: r.events.map((e) => ({ event: e.event, delay_ms: e.delay_ms, fields: e.fields ? JSON.stringify(e.fields) : '' })),
        })),
      );
    } catch (err) {
      setError({ message: describeError(err), errors: [] });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  if (!rules) return null;
  const update = (i: number, f: (r: DraftRule) => DraftRule) => setRules(rules.map((r, j) => (j === i ? f(r) : r)));
  const save = async () => {
    setError(null);
    setNotice(null);
    // Fields that are not JSON are refused here, beside each, before anything is sent.
    const invalid: FieldProblem[] = [];
    const body = {
      rules: rules.map((r, i) => ({
        pattern: r.pattern,
        events: r.events.map((e, j) => {
          let fields: Record<string, unknown> | undefined;
          if (e.fields.trim()) {
            try {
              fields = JSON.parse(e.fields) as Record<string, unknown>;
            } catch (err) {
              invalid.push({ path: `rules.${i}.events.${j}.fields`, message: `are not valid JSON: ${(err as Error).message}` });
            }
          }
          return { event: e.event, delay_ms: e.delay_ms, ...(fields ? { fields } : {}) };
        }),
      })),
    };
    if (invalid.length > 0) {
      setError({ message: 'Not saved', errors: invalid });
      return;
    }
    try {
      const res = await control.setRules(body);
      setNotice(`${res.message}: ${res.data.rules.length} rule${res.data.rules.length === 1 ? '' : 's'}`);
    } catch (err) {
      setError({ message: describeError(err), errors: fieldErrors(err) });
    }
  };
  return (
    <section className="card" aria-labelledby="rules-title">
      <div className="card-head">
        <h2 id="rules-title">Simulation rules</h2>
        <span className="muted small">
          Tried in order, before the simulator addresses. A pattern is an address or a glob such as <code>*@example.com</code>.
        </span>
      </div>
      {rules.length === 0 && (
        <p className="muted">
          No rules: recipients get the simulator's events (<code>bounce@sim.mailyard.test</code>…) or a delivery.
        </p>
      )}
      {rules.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rules being edited have no identity but their place; their inputs are controlled by the list
        <div className="rule" key={i} data-testid="rule">
          <div className="form-row">
            <label className="rule-field">
              <span>
                Pattern{' '}
                <input
                  className="input wide"
                  value={r.pattern}
                  onChange={(e) => update(i, (x) => ({ ...x, pattern: e.target.value }))}
                  placeholder="*@acme.test"
                  {...describedBy(`rule-${i}-pattern-error`, has(`rules.${i}.pattern`))}
                />
              </span>
              <FieldError
                errors={errs}
                path={`rules.${i}.pattern`}
                id={`rule-${i}-pattern-error`}
                testId={`error-rules-${i}-pattern`}
                words={(_, m) => `The pattern ${m}`}
              />
            </label>
            <span className="spacer" />
            <button
              type="button"
              className="button small"
              disabled={i === 0}
              aria-label={`Move rule ${i + 1} up`}
              title="Move this rule up: rules are tried in order"
              onClick={() => setRules([...rules.slice(0, i - 1), r, rules[i - 1]!, ...rules.slice(i + 1)])}
            >
              ↑
            </button>
            <button type="button" className="button danger small" onClick={() => setRules(rules.filter((_, j) => j !== i))}>
              Remove rule
            </button>
          </div>
          <ol className="rule-events">
            {r.events.map((e, j) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: events being edited have no identity but their place; their inputs are controlled by the list
              <li key={j} className="rule-event">
                <div className="form-row">
                  <EventKindSelect
                    label="Rule event"
                    value={e.event}
                    onChange={(event) => update(i, (x) => ({ ...x, events: x.events.map((y, k) => (k === j ? { ...y, event } : y)) }))}
                  />
                  <label>
                    after{' '}
                    <input
                      className="input narrow"
                      type="number"
                      min={0}
                      {...describedBy(`rule-${i}-event-${j}-error`, has(`rules.${i}.events.${j}`))}
                      value={e.delay_ms}
                      onChange={(ev) =>
                        update(i, (x) => ({ ...x, events: x.events.map((y, k) => (k === j ? { ...y, delay_ms: Number(ev.target.value) } : y)) }))
                      }
                    />{' '}
                    ms
                  </label>
                  <input
                    className="input grow code"
                    aria-label="Event fields"
                    {...describedBy(`rule-${i}-event-${j}-error`, has(`rules.${i}.events.${j}`))}
                    placeholder='fields, e.g. {"bounce_type":"soft"}'
                    value={e.fields}
                    onChange={(ev) => update(i, (x) => ({ ...x, events: x.events.map((y, k) => (k === j ? { ...y, fields: ev.target.value } : y)) }))}
                  />
                  <button
                    type="button"
                    className="button small"
                    aria-label="Remove event"
                    onClick={() => update(i, (x) => ({ ...x, events: x.events.filter((_, k) => k !== j) }))}
                  >
                    ×
                  </button>
                </div>
                <FieldError
                  errors={errs}
                  path={`rules.${i}.events.${j}`}
                  id={`rule-${i}-event-${j}-error`}
                  testId={`error-rules-${i}-events-${j}`}
                  words={eventWords}
                />
              </li>
            ))}
          </ol>
          {/* A problem of the list itself ("must have at most 20 events"); each event's are beside it. */}
          <FieldError
            errors={errs?.filter((p) => p.path === `rules.${i}.events`)}
            path={`rules.${i}.events`}
            testId={`error-rules-${i}-events`}
            words={(_, m) => `The events ${m}`}
          />
          <button
            type="button"
            className="button small"
            onClick={() => update(i, (x) => ({ ...x, events: [...x.events, { event: 'delivery', delay_ms: 1000, fields: '' }] }))}
          >
            Add event
          </button>
        </div>
      ))}
      <div className="toolbar">
        <button
          type="button"
          className="button"
          onClick={() => setRules([...rules, { pattern: '', events: [{ event: 'delivery', delay_ms: 1000, fields: '' }] }])}
        >
          Add rule
        </button>
        <button type="button" className="button primary" onClick={() => void save()}>
          Save rules
        </button>
        {notice && <span className="notice small">{notice}</span>}
      </div>
      {error && (
        <div className="error" role="alert" data-testid="rules-error">
          {error.errors.length === 0 ? (
            error.message
          ) : (
            <>
              Not saved: {marked(error.errors)}.
              {problemsElsewhere(
                error.errors,
                rules.map((_, i) => `rules.${i}`),
              ).map((p) => (
                <div key={`${p.path}-${p.message}`}>{p.path === 'rules' ? `The rules ${p.message}` : `${p.path} ${p.message}`}</div>
              ))}
            </>
          )}
        </div>
      )}
    </section>
  );
}

export function Simulation() {
  return (
    <main className="wide">
      <EmulatorClock />
      <Rules />
      <SmtpChaos />
    </main>
  );
}
