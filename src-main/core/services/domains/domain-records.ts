import { domainToUnicode } from 'node:url';
import type { DomainRecord } from '../../../../src-shared/schemas/domains';
import { appError } from '../../error-catalogue';
import type { DomainRow } from '../../store/domains.repo';
import { type DnsRecord, recordName, toPublished, toRecordMap, withMx } from './dns-records';
import { parseDomainName } from './hostname';

/** A domain's options as stored (`domains.options`, JSON). */
export interface DomainOptions {
  custom_args: Record<string, unknown>;
  is_tenant_domain: boolean;
  is_tenant_subdomain: boolean;
  /** Stored by earlier versions as a list of subaccount ids too: a non-empty list reads as true. */
  shared_with_subaccounts: boolean | string[];
  ips: string[];
}

/** The domain as typed, in its DNS form; a 400 naming the problem when it is not a domain. */
export function domainName(input: string, path = 'domain'): { ascii: string; unicode: string } {
  const parsed = parseDomainName(input);
  if ('error' in parsed) throw appError('invalidField', { path, problem: parsed.error });
  return parsed;
}

/** A stored domain as the API answers it; `routed`: inbound routing uses it (its MX record is listed). */
export function toDomainRecord(row: DomainRow, routed: boolean): DomainRecord {
  const options = JSON.parse(row.options) as DomainOptions;
  const ascii = row.domain;
  const records = withMx(JSON.parse(row.records) as DnsRecord[], row.domain, routed);
  const sending = records.filter((r) => recordName(r) !== 'mx');
  const mx = records.find((r) => recordName(r) === 'mx');
  return {
    domain: ascii,
    mailer_id: row.mailer_id,
    is_tenant_domain: options.is_tenant_domain,
    verified: row.status === 'verified',
    sending_records: toRecordMap(sending) as DomainRecord['sending_records'],
    receiving_records: mx ? { mx: toPublished(mx) } : {},
    custom_args: options.custom_args,
    is_tenant_subdomain: options.is_tenant_subdomain,
    shared_with_subaccounts: Array.isArray(options.shared_with_subaccounts) ? options.shared_with_subaccounts.length > 0 : options.shared_with_subaccounts,
    ips: options.ips,
    selector: row.selector,
    domain_unicode: domainToUnicode(ascii) || ascii,
    status: row.status,
    reason: row.reason,
    created_at: row.created_at,
    verified_at: row.verified_at,
    checked_at: row.checked_at,
  };
}
