/** A shell word in single quotes (a quote inside becomes '\''). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The request of an attempt as a curl command that sends exactly it again. A body given as a file
 * (`bodyFile`: a large payload, downloaded) is sent from it as it is.
 */
export function toCurl(req: { method: string; url: string; headers: Record<string, string>; body: string; bodyFile?: string }): string {
  const lines = [`curl -X ${req.method} ${shellQuote(req.url)}`];
  for (const [name, value] of Object.entries(req.headers)) {
    if (['content-length', 'host', 'connection'].includes(name.toLowerCase())) continue;
    lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (req.bodyFile !== undefined) lines.push(`  --data-binary ${shellQuote(`@${req.bodyFile}`)}`);
  else if (req.body !== '') lines.push(`  --data-raw ${shellQuote(req.body)}`);
  return lines.join(' \\\n');
}

/**
 * A delivery's latest request as curl (before any attempt: the request it will send). A payload the
 * emulator answered in part is sent from the file its download saves (`delivery-<id>.json`).
 */
export function deliveryCurl(d: {
  id: string;
  target: { url: string };
  payload: unknown;
  payload_truncated: boolean;
  attempt_log: Array<{ request: { method: string; url: string; headers: Record<string, string>; body: string } }>;
}): string {
  const last = d.attempt_log[d.attempt_log.length - 1]?.request;
  const req = last ?? { method: 'POST', url: d.target.url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(d.payload) };
  return toCurl(d.payload_truncated ? { ...req, bodyFile: `delivery-${d.id}.json` } : req);
}
