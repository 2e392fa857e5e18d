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
