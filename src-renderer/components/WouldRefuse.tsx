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
}: {
  warnings: readonly string[] | undefined;
  /** What Mailyard did with it: "sent it", "saved it". */
  taken: string;
  /** What the service would refuse: "this request", "this send", "this configuration". */
  what: string;
  testId: string;
}) {
  if (!warnings || warnings.length === 0) return null;
  return (
    <div className="small" role="note" data-testid={testId}>
      <p>
        <span className="badge">warning</span> Mailyard {taken}, but the real service would refuse {what}
        <span className="muted"> (run with --strict-requests to be refused as there):</span>
      </p>
      <ul>
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}
