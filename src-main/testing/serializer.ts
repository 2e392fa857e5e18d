/**
 * Snapshots that pass on their second run: ids (ULIDs, in ids, ref_ids, account ids, URLs and
 * Message-IDs), timestamps, Message-ID and Date headers, MIME boundaries, keys, secrets, signatures
 * and durations are replaced by stable placeholders. The same id gets the same placeholder within one
 * value (`<id:1>` twice is the same record), so the snapshot still shows what refers to what.
 *
 *   expect.addSnapshotSerializer(mailyardSerializer);   // vitest and jest alike
 */

const ULID = /(?<![0-9A-Za-z])[0-7][0-9A-HJKMNP-TV-Z]{25}(?![0-9A-Za-z])/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})/g;
const HEADER_LINE = /^(message-id|date|x-mailyard-[\w-]*|dkim-signature|references|in-reply-to):[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*/gim;
const BOUNDARY = /boundary="?([^";\s]+)"?/gi;
/** Fields whose value differs every run, whatever it looks like. */
const VOLATILE_FIELDS: Record<string, string> = {
  api_key: '<api-key>',
  apiKey: '<api-key>',
  signing_secret: '<secret>',
  secret: '<secret>',
  control_key: '<control-key>',
  controlKey: '<control-key>',
  'webhook-id': '<webhook-id>',
  'webhook-signature': '<signature>',
  'webhook-timestamp': '<timestamp>',
  'x-mailyard-signature': '<signature>',
  duration_ms: '<ms>',
  waited_ms: '<ms>',
  now_ms: '<ms>',
  offset_ms: '<ms>',
};
const HEADER_VALUES: Record<string, string> = { 'message-id': '<message-id>', date: '<date>', references: '<references>', 'in-reply-to': '<in-reply-to>' };

class Normalizer {
  private readonly ids = new Map<string, string>();
  private readonly boundaries = new Map<string, string>();

  string(value: string): string {
    let out = value;
    for (const m of value.matchAll(BOUNDARY)) {
      const b = m[1]!;
      if (!this.boundaries.has(b)) this.boundaries.set(b, `<boundary:${this.boundaries.size + 1}>`);
    }
    for (const [b, name] of this.boundaries) out = out.split(b).join(name);
    out = out.replace(HEADER_LINE, (line) => `${line.slice(0, line.indexOf(':'))}: <${line.slice(0, line.indexOf(':')).toLowerCase()}>`);
    out = out.replace(ULID, (id) => {
      const key = id.toUpperCase();
      if (!this.ids.has(key)) this.ids.set(key, `<id:${this.ids.size + 1}>`);
      return this.ids.get(key)!;
    });
    return out.replace(ISO_TIME, '<timestamp>');
  }

  value(value: unknown, key?: string): unknown {
    if (key !== undefined && key in VOLATILE_FIELDS && value !== null && value !== undefined) return VOLATILE_FIELDS[key];
    if (typeof value === 'string') return this.string(value);
    if (Buffer.isBuffer(value)) return this.string(value.toString('utf8'));
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value instanceof Date) return '<timestamp>';
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      // A header as the message detail lists it: { name: 'Message-ID', value: '<...>' }.
      const headerName = typeof record.name === 'string' && typeof record.value === 'string' ? record.name.toLowerCase() : undefined;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(record)) {
        if (k.endsWith('_at') && typeof v === 'string') out[k] = '<timestamp>';
        else if (
          k === 'value' &&
          headerName !== undefined &&
          (headerName in HEADER_VALUES || headerName.startsWith('x-mailyard-') || headerName === 'dkim-signature')
        )
          out[k] = HEADER_VALUES[headerName] ?? `<${headerName}>`;
        else out[k] = this.value(v, k);
      }
      return out;
    }
    return value;
  }
}

/** A copy of `value` with the volatile parts replaced (see the module's comment). */
export function normalizeForSnapshot<T>(value: T): unknown {
  return new Normalizer().value(value);
}

/** Values the serializer printed already (normalized copies), so it does not take them again. */
const printed = new WeakSet<object>();

function hasVolatile(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (typeof value === 'string') {
    ULID.lastIndex = 0;
    ISO_TIME.lastIndex = 0;
    HEADER_LINE.lastIndex = 0;
    return ULID.test(value) || ISO_TIME.test(value) || HEADER_LINE.test(value);
  }
  if (Buffer.isBuffer(value)) return true;
  if (value === null || typeof value !== 'object' || printed.has(value)) return false;
  for (const [k, v] of Object.entries(value)) {
    if (k in VOLATILE_FIELDS || (k.endsWith('_at') && typeof v === 'string')) return true;
    if (hasVolatile(v, depth + 1)) return true;
  }
  return false;
}

// biome-ignore-start lint/suspicious/noExplicitAny: pretty-format's plugin shape, as vitest and jest each type it
type Printer = (value: any, config: any, indentation: string, depth: number, refs: any) => string;

/** A snapshot serializer for vitest and jest (`expect.addSnapshotSerializer(mailyardSerializer)`). */
export const mailyardSerializer = {
  test(value: unknown): boolean {
    if (value === null || value === undefined) return false;
    if (typeof value === 'object' && printed.has(value)) return false;
    return hasVolatile(value);
  },
  serialize(value: unknown, config: any, indentation: string, depth: number, refs: any, printer: Printer): string {
    const normalized = normalizeForSnapshot(value);
    if (normalized !== null && typeof normalized === 'object') printed.add(normalized);
    return printer(normalized, config, indentation, depth, refs);
  },
};
// biome-ignore-end lint/suspicious/noExplicitAny: the plugin's shape ends here
