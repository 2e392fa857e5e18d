import type { DomainStatus } from '../../../../src-shared/schemas/domains';
import { DomainVerificationPayload } from '../../../../src-shared/schemas/events';
import type { DomainRow } from '../../store/domains.repo';
import { publicKeyOf } from './dkim-keys';
import { checkInDns, type DnsRecord, type DnsResolver, dnsRecordsFor, toRecordMap, withMx } from './dns-records';

export const DNS_VERIFICATION_MODES = ['simulated', 'real'] as const;
export type DnsVerificationMode = (typeof DNS_VERIFICATION_MODES)[number];

/** The reason of a failed outcome set through the control API without one. */
export const DEFAULT_FAILURE = 'the verification outcome was set to failed on the emulator (no reason given)';

/** One verification's outcome: every record's, the domain's status, and why it failed (null when verified). */
export interface RecordsCheck {
  records: DnsRecord[];
  status: DomainStatus;
  reason: string | null;
}

/**
 * Checks the domain's records now. Simulated: the outcome set through the control API (verified unless
 * set to failed). Real: each record looked up in DNS (a failed outcome set through the control API
 * still wins). `routed`: inbound routing uses the domain, so its MX record is checked too.
 */
export async function checkRecords(row: DomainRow, routed: boolean, mode: DnsVerificationMode, resolver: DnsResolver): Promise<RecordsCheck> {
  const stored = withMx(JSON.parse(row.records) as DnsRecord[], row.domain, routed);
  let records: DnsRecord[];
  let reason: string | null = null;
  if (row.next_outcome === 'failed') {
    reason = row.next_reason ?? DEFAULT_FAILURE;
    records = stored.map((r) => ({ type: r.type, host: r.host, value: r.value, status: 'failed', reason: reason! }));
  } else if (mode === 'real') {
    // The published values are derived from the key, so a record never disagrees with the key that signs.
    const expected = withMx(dnsRecordsFor(row.domain, row.selector, publicKeyOf(row.dkim_private_key)), row.domain, routed);
    records = await checkInDns(expected, resolver);
    const failed = records.filter((r) => r.status !== 'verified');
    if (failed.length) reason = failed.map((r) => `${r.type} ${r.host}: ${r.reason}`).join('; ');
  } else {
    records = stored.map((r) => ({ type: r.type, host: r.host, value: r.value, status: 'verified' }));
  }
  return { records, status: reason === null ? 'verified' : 'failed', reason };
}

/** The DOMAIN_VERIFICATION notification of a domain's status change from `previous` to `check.status`. */
export function verificationPayload(row: DomainRow, previous: DomainStatus, check: RecordsCheck, at: string): DomainVerificationPayload {
  return DomainVerificationPayload.parse({
    event: 'domain_verification',
    timestamp: at,
    domain: row.domain,
    status: check.status,
    previous_status: previous,
    mailer_id: row.mailer_id,
    records: toRecordMap(check.records),
    ...(check.status === 'failed' && check.reason !== null ? { reason: check.reason } : {}),
  });
}
