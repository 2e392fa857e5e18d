import type { InboundDomainRecord, InboundUsernameRecord } from '../../../../src-shared/schemas/inbound';
import type { DeliveryTarget } from '../../dispatch/dispatcher';
import type { InboundDomainRow, InboundUsernameRow } from '../../store/inbound.repo';

type Method = InboundDomainRecord['method'];

function headersOf(json: string | null): Record<string, string> | null {
  return json === null ? null : (JSON.parse(json) as Record<string, string>);
}

/** A username's own URL, method and headers, else its domain's. */
export function effectiveTarget(domain: InboundDomainRow, username: InboundUsernameRow | undefined): DeliveryTarget {
  if (username?.url) return { url: username.url, method: username.method ?? domain.method, headers: headersOf(username.headers) ?? {} };
  return { url: domain.url, method: domain.method, headers: headersOf(domain.headers)! };
}

/** A domain's route as the API answers it, with the names of its usernames. */
export function toInboundDomainRecord(row: InboundDomainRow, usernames: string[]): InboundDomainRecord {
  return {
    domain: row.domain,
    url: row.url,
    method: row.method as Method,
    headers: headersOf(row.headers)!,
    wildcard: row.wildcard === 1,
    strict_replies: row.strict_replies === 1,
    usernames,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A username's route as the API answers it, with where its mail goes in effect. */
export function toInboundUsernameRecord(domain: InboundDomainRow, row: InboundUsernameRow): InboundUsernameRecord {
  return {
    domain: domain.domain,
    username: row.username,
    url: row.url,
    method: row.method as Method | null,
    headers: headersOf(row.headers),
    effective: effectiveTarget(domain, row) as InboundUsernameRecord['effective'],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
