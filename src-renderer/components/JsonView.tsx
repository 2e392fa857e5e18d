import type { ReactNode } from 'react';

/** Pretty JSON with its tokens coloured; built as React elements (never HTML strings). */
function render(value: unknown, indent: string, key: string): ReactNode {
  if (value === null) return <span className="j-null">null</span>;
  if (typeof value === 'string') return <span className="j-str">{JSON.stringify(value)}</span>;
  if (typeof value === 'number' || typeof value === 'bigint') return <span className="j-num">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="j-bool">{String(value)}</span>;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return (
      <>
        {'[\n'}
        {value.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: an array's items are known by their place in it
          <span key={`${key}.${i}`}>
            {inner}
            {render(v, inner, `${key}.${i}`)}
            {i < value.length - 1 ? ',\n' : '\n'}
          </span>
        ))}
        {`${indent}]`}
      </>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return (
    <>
      {'{\n'}
      {entries.map(([k, v], i) => (
        <span key={`${key}.${k}`}>
          {inner}
          <span className="j-key">{JSON.stringify(k)}</span>: {render(v, inner, `${key}.${k}`)}
          {i < entries.length - 1 ? ',\n' : '\n'}
        </span>
      ))}
      {`${indent}}`}
    </>
  );
}

export function JsonView({ value, testId }: { value: unknown; testId?: string }) {
  return (
    <pre className="snippet json" data-testid={testId}>
      {render(value, '', 'root')}
    </pre>
  );
}

/** A body as received: pretty JSON when it parses, else the text as it is (wrapped in its box, like JSON). */
export function BodyView({ text, testId }: { text: string; testId?: string }) {
  if (text === '') return <p className="muted small">(empty body)</p>;
  try {
    return <JsonView value={JSON.parse(text)} testId={testId} />;
  } catch {
    return (
      <pre className="snippet wrap" data-testid={testId}>
        {text}
      </pre>
    );
  }
}

/**
 * Header lines as a table, names never broken inside a word (a hyphen may end a line). `notes` adds
 * a muted line under a header's value, by lower-case name (which clock a time header is on).
 */
export function HeadersTable({
  headers,
  notes = {},
}: {
  headers: Record<string, string> | Array<{ name: string; value: string }>;
  notes?: Record<string, ReactNode>;
}) {
  const rows = Array.isArray(headers) ? headers.map((h) => [h.name, h.value] as const) : Object.entries(headers);
  if (rows.length === 0) return <p className="muted small">(no headers)</p>;
  return (
    <table className="table kv">
      <tbody>
        {rows.map(([name, value], i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows in the order given, a name may come twice; the table is drawn anew from them
          <tr key={`${name}-${i}`}>
            <th>{name}</th>
            <td>
              <code>{value}</code>
              {notes[name.toLowerCase()] && (
                <div className="muted small" data-testid="header-note">
                  {notes[name.toLowerCase()]}
                </div>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
