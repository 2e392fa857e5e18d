import type { DnsRecordName, DomainDnsRecords, DnsRecord as PublishedRecord } from '../../../../src-shared/schemas/domains';

/**
 * A record as the store keeps it (in `domains.records` and `domain_checks.records`, JSON arrays in this
 * order: SPF, DKIM, return path, then the MX while inbound routing uses the domain). The answers show
 * it by name (`toRecordMap`).
 */
export interface DnsRecord {
  type: PublishedRecord['type'];
  host: string;
  value: string;
  status: PublishedRecord['status'];
  found?: string[];
  reason?: string;
}

/** What the emulated service asks a domain to publish. */
export const SPF_INCLUDE = 'spf.mailyard.test';
export const RETURN_PATH_LABEL = 'mly-bounces';
export const RETURN_PATH_TARGET = 'bounces.mailyard.test';
/** The inbound mail host, listed when inbound routing uses the domain. */
export const MX_HOST = 'mx.mailyard.test';
export const MX_PRIORITY = 10;

/** The part of node's `dns.promises.Resolver` a real check uses; tests point one at a local DNS server. */
export interface DnsResolver {
  resolveTxt(host: string): Promise<string[][]>;
  resolveCname(host: string): Promise<string[]>;
  resolveMx(host: string): Promise<Array<{ exchange: string; priority: number }>>;
}

export const dkimHost = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const spfValue = () => `v=spf1 include:${SPF_INCLUDE} ~all`;
export const dkimValue = (publicKeyBase64: string) => `v=DKIM1; k=rsa; p=${publicKeyBase64}`;

/** The records to publish, all `pending`: SPF TXT, DKIM TXT, return-path CNAME. */
export function dnsRecordsFor(domain: string, selector: string, publicKeyBase64: string): DnsRecord[] {
  return [
    { type: 'TXT', host: domain, value: spfValue(), status: 'pending' },
    { type: 'TXT', host: dkimHost(selector, domain), value: dkimValue(publicKeyBase64), status: 'pending' },
    { type: 'CNAME', host: `${RETURN_PATH_LABEL}.${domain}`, value: RETURN_PATH_TARGET, status: 'pending' },
  ];
}

export const mxRecordFor = (domain: string): DnsRecord => ({ type: 'MX', host: domain, value: `${MX_PRIORITY} ${MX_HOST}`, status: 'pending' });

/**
 * The records as they stand: the stored ones, with the MX only while inbound routing uses the
 * domain (pending until a verification checks it).
 */
export function withMx(stored: DnsRecord[], domain: string, routed: boolean): DnsRecord[] {
  const base = stored.filter((r) => r.type !== 'MX');
  if (!routed) return base;
  return [...base, stored.find((r) => r.type === 'MX') ?? mxRecordFor(domain)];
}

/** The name a record goes by in the answers: `spf`, `dkim`, `return_path` or `mx`. */
export function recordName(r: DnsRecord): DnsRecordName {
  if (r.type === 'MX') return 'mx';
  if (r.type === 'CNAME') return 'return_path';
  return isDkim(r) ? 'dkim' : 'spf';
}

/** A record as the answers show it: `{key, type, value, verified}` and Mailyard's status, reason and what was found. */
export function toPublished(r: DnsRecord): PublishedRecord {
  return {
    key: r.host,
    type: r.type,
    value: r.value,
    verified: r.status === 'verified',
    status: r.status,
    ...(r.found !== undefined ? { found: r.found } : {}),
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
  };
}

/** The records by name (`{spf, dkim, return_path, mx?}`), as verifyDomain and the notification give them. */
export function toRecordMap(records: DnsRecord[]): DomainDnsRecords {
  const map: Partial<Record<DnsRecordName, PublishedRecord>> = {};
  for (const r of records) map[recordName(r)] = toPublished(r);
  return map as DomainDnsRecords;
}

const isSpf = (r: DnsRecord) => r.type === 'TXT' && /^v=spf1\b/i.test(r.value);
const isDkim = (r: DnsRecord) => r.type === 'TXT' && /^v=DKIM1\b/i.test(r.value);

/** `k=v; k=v` tags of a DKIM record (RFC 6376 3.6.1), names lower-cased, whitespace removed from values. */
function dkimTags(text: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

const hostName = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** What DNS answered, compared with what the record asks for. */
function judge(record: DnsRecord, found: string[]): { ok: boolean; reason?: string } {
  if (record.type === 'MX') {
    if (found.length === 0) return { ok: false, reason: 'no MX record found' };
    if (found.some((f) => hostName(f.split(/\s+/).at(-1)!) === MX_HOST)) return { ok: true };
    return { ok: false, reason: `the MX records point to ${found.join(', ')}, expected ${MX_HOST}` };
  }
  if (record.type === 'CNAME') {
    if (found.length === 0) return { ok: false, reason: 'no CNAME record found' };
    if (found.some((f) => hostName(f) === hostName(record.value))) return { ok: true };
    return { ok: false, reason: `the CNAME points to ${found.join(', ')}, expected ${record.value}` };
  }
  if (isSpf(record)) {
    const spf = found.filter((f) => /^v=spf1(\s|$)/i.test(f.trim()));
    if (spf.length === 0) return { ok: false, reason: found.length === 0 ? 'no TXT record found' : 'no SPF record (v=spf1) among the TXT records found' };
    if (spf.length > 1) return { ok: false, reason: 'more than one SPF record found (RFC 7208 allows one; merge them)' };
    const terms = spf[0]!.toLowerCase().split(/\s+/);
    if (!terms.some((t) => /^[+?~]?include:/.test(t) && t.slice(t.indexOf(':') + 1).replace(/\.$/, '') === SPF_INCLUDE)) {
      return { ok: false, reason: `the SPF record does not include:${SPF_INCLUDE}` };
    }
    return { ok: true };
  }
  if (isDkim(record)) {
    const want = dkimTags(record.value).get('p');
    const keys = found.map(dkimTags).filter((t) => t.has('p'));
    if (keys.length === 0) return { ok: false, reason: found.length === 0 ? 'no TXT record found' : 'no DKIM key (p=) among the TXT records found' };
    if (keys.some((t) => t.get('p') === want)) return { ok: true };
    if (keys.every((t) => t.get('p') === '')) return { ok: false, reason: 'the DKIM key is revoked (empty p=)' };
    return { ok: false, reason: 'the DKIM record holds another public key' };
  }
  return found.includes(record.value) ? { ok: true } : { ok: false, reason: 'not found' };
}

/** Error codes of node's resolver that mean "there is no such record". */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/** Looks every record up in real DNS and says per record what was found and whether it matches. */
export async function checkInDns(records: DnsRecord[], resolver: DnsResolver): Promise<DnsRecord[]> {
  return Promise.all(
    records.map(async (record): Promise<DnsRecord> => {
      let found: string[];
      try {
        found =
          record.type === 'CNAME'
            ? await resolver.resolveCname(record.host)
            : record.type === 'MX'
              ? (await resolver.resolveMx(record.host)).map((mx) => `${mx.priority} ${mx.exchange}`)
              : (await resolver.resolveTxt(record.host)).map((chunks) => chunks.join(''));
      } catch (err) {
        const code = (err as { code?: string }).code ?? 'error';
        if (!NOT_FOUND.has(code)) {
          return { type: record.type, host: record.host, value: record.value, status: 'failed', found: [], reason: `DNS lookup failed (${code})` };
        }
        found = [];
      }
      const verdict = judge(record, found);
      return {
        type: record.type,
        host: record.host,
        value: record.value,
        status: verdict.ok ? 'verified' : 'failed',
        found,
        ...(verdict.reason ? { reason: verdict.reason } : {}),
      };
    }),
  );
}
