/**
 * What the real service would have refused in a request Mailyard took (its `X-Mailyard-Warning`
 * answer header, docs/warnings.md): each warning names its rule and the service's answer. Shown
 * beside the answer; nothing when none.
 */
export function WouldRefuse({ warnings }: { warnings: readonly string[] | undefined }) {
  if (!warnings || warnings.length === 0) return null;
  return (
    <div className="small" role="note" data-testid="send-warnings">
      <p>
        <span className="badge">warning</span> Mailyard sent it, but the real service would refuse this request
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
