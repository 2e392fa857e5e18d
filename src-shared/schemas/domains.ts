import { z } from 'zod';
import { Timestamp } from './common';

/** Explicit limits on sending domains (documented in the README). */
export const DOMAIN_LIMITS = {
  /** A domain name as typed (an IDN before conversion may be longer in characters than its ASCII form). */
  inputLength: 253,
  selectorLength: 63,
  ips: 100,
  customArgs: 50,
  customArgLength: 1000,
  reasonLength: 500,
  subaccounts: 100,
} as const;

export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export const DomainStatus = z.enum(DOMAIN_STATUSES);
export type DomainStatus = z.infer<typeof DomainStatus>;

export const DNS_RECORD_TYPES = ['TXT', 'CNAME', 'MX'] as const;

/** The domain as typed: checked as a hostname by the service (IDN converted to its ASCII form). */
export const DomainName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(DOMAIN_LIMITS.inputLength, `must be at most ${DOMAIN_LIMITS.inputLength} characters`)
  .meta({ example: 'mail.example.com' });

/** A DKIM selector (RFC 6376 3.1): one or more DNS labels of letters, digits and hyphens. */
export const DkimSelector = z
  .string()
  .max(DOMAIN_LIMITS.selectorLength, `must be at most ${DOMAIN_LIMITS.selectorLength} characters`)
  .regex(
    /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*$/,
    'must be DNS labels of letters, digits and hyphens (for example s1 or mail-2026)',
  );

const IpAddress = z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' });

const CustomArgs = z
  .record(z.string().max(100), z.string({ error: 'values must be strings' }).max(DOMAIN_LIMITS.customArgLength))
  .refine((args) => Object.keys(args).length <= DOMAIN_LIMITS.customArgs, `must have at most ${DOMAIN_LIMITS.customArgs} keys`);

/**
 * `shared_with_subaccounts`: the spec does not state its type. Mailyard takes `true`/`false`
 * (shared with all or none) or a list of subaccount ids, and echoes it as given.
 */
const SharedWithSubaccounts = z.union(
  [z.boolean(), z.array(z.string().min(1).max(64)).max(DOMAIN_LIMITS.subaccounts, `must list at most ${DOMAIN_LIMITS.subaccounts} subaccounts`)],
  { error: 'must be true, false or a list of subaccount ids' },
);

/** The domain payload of the spec (part 2.6). */
export const AddDomainBody = z
  .strictObject({
    domain: DomainName,
    custom_args: CustomArgs.optional(),
    is_tenant_domain: z.boolean().optional(),
    is_tenant_subdomain: z.boolean().optional(),
    shared_with_subaccounts: SharedWithSubaccounts.optional(),
    ips: z.array(IpAddress).max(DOMAIN_LIMITS.ips, `must list at most ${DOMAIN_LIMITS.ips} addresses`).optional(),
    selector: DkimSelector.optional(),
  })
  .meta({ id: 'AddDomainBody' });
export type AddDomainBody = z.infer<typeof AddDomainBody>;

export const DomainParams = z.strictObject({ domain: DomainName });

/** One DNS record the user must publish, with the outcome of its last check. */
export const DnsRecord = z
  .object({
    type: z.enum(DNS_RECORD_TYPES),
    /** Where it is published (a fully qualified name, ASCII). */
    host: z.string(),
    value: z.string(),
    status: DomainStatus,
    /** With `--dns-verification real`: what DNS answered at `host` for this type on the last check. */
    found: z.array(z.string()).optional(),
    /** Why the last check failed. */
    reason: z.string().optional(),
  })
  .meta({ id: 'DnsRecord' });
export type DnsRecord = z.infer<typeof DnsRecord>;

export const DomainRecord = z
  .object({
    /** ASCII form, lower-cased (an IDN as punycode): the form used in DNS and in addresses. */
    domain: z.string(),
    /** The domain in Unicode (equal to `domain` unless it is an IDN). */
    domain_unicode: z.string(),
    custom_args: z.record(z.string(), z.string()),
    is_tenant_domain: z.boolean(),
    is_tenant_subdomain: z.boolean(),
    shared_with_subaccounts: z.union([z.boolean(), z.array(z.string())]),
    ips: z.array(z.string()),
    selector: z.string(),
    status: DomainStatus,
    /** Why the last verification failed; null unless `status` is failed. */
    reason: z.string().nullable(),
    dns_records: z.array(DnsRecord),
    created_at: Timestamp,
    verified_at: Timestamp.nullable(),
    /** When verification last ran; null before the first. */
    checked_at: Timestamp.nullable(),
  })
  .meta({ id: 'Domain' });
export type DomainRecord = z.infer<typeof DomainRecord>;

export const VERIFICATION_OUTCOMES = ['verified', 'failed'] as const;

/** Control API: the outcome of the domain's next verifications in simulated mode (it stays until changed). */
export const SetVerificationBody = z
  .strictObject({
    outcome: z.enum(VERIFICATION_OUTCOMES, { error: 'must be verified or failed' }),
    reason: z.string().trim().min(1, 'must not be empty').max(DOMAIN_LIMITS.reasonLength, `must be at most ${DOMAIN_LIMITS.reasonLength} characters`).optional(),
    /** The account whose domain it is; without it, every account's domain of that name. */
    account_id: z.string().min(1).max(64).optional(),
  })
  .refine((b) => b.outcome === 'failed' || b.reason === undefined, { message: 'is only for outcome failed', path: ['reason'] })
  .meta({ id: 'SetVerificationBody' });
export type SetVerificationBody = z.infer<typeof SetVerificationBody>;

export const DomainCheck = z.object({
  checked_at: Timestamp,
  mode: z.enum(['simulated', 'real']),
  status: DomainStatus,
  reason: z.string().nullable(),
  records: z.array(DnsRecord),
});
export type DomainCheck = z.infer<typeof DomainCheck>;

/** Control API: a domain as the emulator sees it (every account's), with its outcome setting and recent checks. */
export const EmulatorDomain = DomainRecord.extend({
  account_id: z.string(),
  verification: z.object({ outcome: z.enum(VERIFICATION_OUTCOMES), reason: z.string().nullable() }),
  /** The last 20 verifications, newest first. */
  checks: z.array(DomainCheck),
}).meta({ id: 'EmulatorDomain' });
export type EmulatorDomain = z.infer<typeof EmulatorDomain>;

export const VerificationSetting = z.object({
  domain: z.string(),
  outcome: z.enum(VERIFICATION_OUTCOMES),
  reason: z.string().nullable(),
  /** How many accounts' domains of that name it applies to. */
  accounts: z.number().int(),
});
