/**
 * What the API ignored in a request (its `X-Mailyard-Ignored` answer header): unknown fields and
 * query parameters, and nulls for optional fields. Shown beside the answer; nothing when none.
 */
export function IgnoredFields({ paths }: { paths: readonly string[] | undefined }) {
  if (!paths || paths.length === 0) return null;
  return (
    <p className="small" role="note" data-testid="send-ignored">
      <span className="badge">ignored</span> The API ignored{' '}
      {paths.map((p, i) => (
        <span key={p}>
          {i > 0 && ', '}
          <code>{p}</code>
        </span>
      ))}
      <span className="muted">
        : not fields it knows, or null where a field may be left out. The real service ignores them too; run with --strict-requests to refuse them.
      </span>
    </p>
  );
}
