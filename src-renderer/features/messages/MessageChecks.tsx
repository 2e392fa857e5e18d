import { useEffect, useState } from 'react';
import type { LinkCheck, MessageChecks, SpamCheck } from '../../../src-shared/schemas/checks';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { control, describeError } from '../../api/clients';
import { CopyButton } from '../../components/CopyButton';
import './MessageChecks.css';

/** A control API answer's data about one message (`load` a client method); errors in words. */
function useData<T>(id: string, load: (id: string) => Promise<{ data: T }>): { data: T | null; error: string | null } {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  useEffect(() => {
    let gone = false;
    setState({ data: null, error: null });
    load(id).then(
      ({ data }) => !gone && setState({ data, error: null }),
      (err: unknown) => !gone && setState({ data: null, error: describeError(err) }),
    );
    return () => {
      gone = true;
    };
  }, [id, load]);
  return state;
}

/** The Checks tab: SpamAssassin's score with the rules that fired, the links with their problems, the HTML against email clients. */
export function Checks({ d }: { d: Detail }) {
  const checks = useData<MessageChecks>(d.id, control.getMessageChecks);
  return (
    <div className="checks" data-testid="message-checks">
      <Spam id={d.id} />
      {checks.error && <p className="error">{checks.error}</p>}
      {!checks.data && !checks.error && <p className="muted">Checking…</p>}
      {checks.data && !checks.data.has_html && <p className="muted">This message has no HTML part: there are no links or client compatibility to check.</p>}
      {checks.data?.has_html && (
        <>
          <Links links={checks.data.links} />
          <Compatibility checks={checks.data} />
        </>
      )}
    </div>
  );
}

function Spam({ id }: { id: string }) {
  const { data, error } = useData<SpamCheck>(id, control.getMessageSpamScore);
  return (
    <section aria-label="Spam score" data-testid="checks-spam">
      <h3>Spam score (SpamAssassin)</h3>
      {error && <p className="error">{error}</p>}
      {!data && !error && <p className="muted">Scoring with SpamAssassin… (the first check starts it, which can take a few seconds)</p>}
      {data && data.status !== 'ok' && <p className="muted">{data.reason}</p>}
      {data?.status === 'ok' && (
        <>
          <p>
            <span className={`checks-score ${data.is_spam ? 'is-spam' : 'not-spam'}`} data-testid="spam-score">
              {data.score.toFixed(1)}
            </span>{' '}
            <span className="muted">
              of {data.threshold.toFixed(1)} needed for spam: {data.is_spam ? 'spam' : 'not spam'}
              {data.version ? ` · SpamAssassin ${data.version}, local tests only` : ' · local tests only'}
            </span>
          </p>
          <p className="muted small" data-testid="spam-filter-state">
            {data.spam_filter
              ? 'The spam filter is on (--spam-filter spamassassin): a send scored at or over the threshold gets a spam event.'
              : `The spam filter is off: the score changed nothing${data.is_spam ? ' (this message was not marked spam for it)' : ''}. Start with --spam-filter spamassassin to give such sends a spam event.`}
          </p>
          {data.rules.length > 0 && (
            <table className="table" aria-label="Rules that fired">
              <thead>
                <tr>
                  <th>Points</th>
                  <th>Rule</th>
                  <th>Description</th>
                </tr>
              </thead>
              <tbody>
                {data.rules.map((r) => (
                  <tr key={r.name} data-testid="spam-rule">
                    <td className={r.score > 0 ? 'level-error' : 'level-info'}>{r.score}</td>
                    <td>
                      <code>{r.name}</code>
                    </td>
                    <td>{r.description}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

const LEVEL_WORD = { error: 'Problem', warning: 'Warning', info: 'Note' } as const;

function Links({ links }: { links: LinkCheck[] }) {
  const flagged = links.filter((l) => l.problems.some((p) => p.level !== 'info')).length;
  return (
    <section aria-label="Links" data-testid="checks-links">
      <h3>
        Links ({links.length}){flagged > 0 && <span className="level-error"> · {flagged} with problems</span>}
      </h3>
      {links.length === 0 ? (
        <p className="muted">No links.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Link</th>
              <th>Text</th>
              <th>Problems</th>
            </tr>
          </thead>
          <tbody>
            {links.map((l, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the message's links in document order, the same URL may come twice; replaced whole
              <tr key={i} data-testid="link-row">
                <td className="link-url">
                  <code>{l.url || '(empty)'}</code>
                  {l.url !== l.href && <div className="muted small">as sent: {l.href}</div>}
                </td>
                <td>{l.text || <span className="muted">(no text)</span>}</td>
                <td>
                  {l.problems.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    <ul className="problems">
                      {l.problems.map((p, j) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: a link's problems as the check found them, replaced whole
                        <li key={j} className={`level-${p.level}`}>
                          {LEVEL_WORD[p.level]}: {p.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Compatibility({ checks }: { checks: MessageChecks }) {
  const { findings, families, source } = checks.compatibility;
  return (
    <section aria-label="Client compatibility" data-testid="checks-compat">
      <h3>HTML compatibility</h3>
      <p className="muted small">Against {source}.</p>
      {findings.length === 0 ? (
        <p>Every feature this HTML uses is supported by the clients caniemail knows.</p>
      ) : (
        <>
          <ul className="families" aria-label="By client family">
            {families.map((f) => (
              <li key={f.family} data-testid="compat-family">
                <strong>{f.family}</strong> {f.errors > 0 && <span className="level-error">{f.errors} unsupported</span>}{' '}
                {f.warnings > 0 && <span className="level-warning">{f.warnings} partial</span>}
              </li>
            ))}
          </ul>
          <table className="table">
            <thead>
              <tr>
                <th>Feature</th>
                <th>Support</th>
                <th>Clients</th>
              </tr>
            </thead>
            <tbody>
              {findings.map((f) => (
                <tr key={`${f.level}-${f.feature}`} data-testid="compat-finding" data-level={f.level}>
                  <td>
                    <code>{f.feature}</code>
                  </td>
                  <td className={`level-${f.level}`}>{f.level === 'error' ? 'Not supported' : 'Partly supported'}</td>
                  <td className="clients">
                    {f.clients.join(', ')}
                    {f.notes.length > 0 && (
                      <details>
                        <summary className="muted">caniemail's notes ({f.notes.length})</summary>
                        <ul className="problems">
                          {f.notes.map((n, i) => (
                            // biome-ignore lint/suspicious/noArrayIndexKey: a finding's notes as the check found them, replaced whole
                            <li key={i}>{n}</li>
                          ))}
                        </ul>
                      </details>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

/** The HTML part as the sender wrote it. */
export function HtmlSource({ d }: { d: Detail }) {
  if (d.html === null) return <p className="muted pad">This message has no HTML part.</p>;
  return (
    <>
      <div className="toolbar">
        <CopyButton text={d.html} label="Copy HTML" />
      </div>
      <pre className="snippet raw" data-testid="html-source">
        {d.html}
      </pre>
    </>
  );
}
