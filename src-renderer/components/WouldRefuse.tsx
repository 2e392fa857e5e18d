/**
 * What the real service would have refused in something Mailyard took (docs/warnings.md): the
 * emulator's own words for each (its `X-Mailyard-Warning`, stored with a send or read from a mailer),
 * each starting with its rule's name. One wording for the Send page's answer, a message's detail and
 * the Mailers screen; nothing when there is none.
 */
export function WouldRefuse({
  warnings,
  taken,
  what,
  testId,
  folded = false,
}: {
  warnings: readonly string[] | undefined;
  /** What Mailyard did with it: "sent it", "saved it". */
  taken: string;
  /** What the service would refuse: "this request", "this send", "this configuration". */
  what: string;
  testId: string;
  /**
   * A badge naming the rules, opened over what follows for the words (a message's title line: most
   * sends from a demo's unverified domain carry one, and the preview keeps its room).
   */
  folded?: boolean;
}) {
  if (!warnings || warnings.length === 0) return null;
  const list = (
    <ul>
      {warnings.map((w) => (
        <li key={w}>{w}</li>
      ))}
    </ul>
  );
  if (folded) {
    // Each warning starts with its rule's name (`unverified-sender: ...`).
    const rules = warnings.map((w) => w.split(':')[0]).join(', ');
    return (
      <details className="small would-refuse" data-testid={testId}>
        <summary title={`The real service would refuse ${what}: ${rules}`}>
          <span className="badge warn">
            {warnings.length} warning{warnings.length === 1 ? '' : 's'}
          </span>
        </summary>
        <div className="would-refuse-words">
          <p>
            Mailyard {taken}, but the real service would refuse {what}
            <span className="muted"> (run with --strict-requests to be refused as there):</span>
          </p>
          {list}
        </div>
      </details>
    );
  }
  return (
    <div className="small" role="note" data-testid={testId}>
      <p>
        <span className="badge">warning</span> Mailyard {taken}, but the real service would refuse {what}
        <span className="muted"> (run with --strict-requests to be refused as there):</span>
      </p>
      {list}
    </div>
  );
}
