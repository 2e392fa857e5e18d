/** An API error as the service words it; when it names several fields, each with its path. */
export interface ApiErrorView {
  message: string;
  errors: Array<{ path: string; message: string }>;
}

export function ApiErrorAlert({ error, testId }: { error: ApiErrorView; testId?: string }) {
  return (
    <div className="error" role="alert" data-testid={testId}>
      <strong>{error.message}</strong>
      {error.errors.length > 1 && (
        <ul>
          {error.errors.map((e) => (
            <li key={`${e.path}-${e.message}`}>
              <code>{e.path}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
