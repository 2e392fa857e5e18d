import { z } from 'zod';
import { Timestamp } from './common';

/** Explicit limits on sending domains (docs/limits.md). */
export const DOMAIN_LIMITS = {
  /** A domain name as typed (an IDN before conversion may be longer in characters than its ASCII form). */
  inputLength: 253,
  selectorLength: 63,
  ips: 100,
  customArgs: 50,
  customArgLength: 1000,
  reasonLength: 500,
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

/**
 * A DKIM selector (RFC 6376 3.1): one or more DNS labels of letters, digits and hyphens. The empty
 * string is a selector not given (one is generated, as the domain guide says of a missing one): clients
 * in typed languages send `""` for a field they do not set.
 */
export const DkimSelector = z
  .string()
  .max(DOMAIN_LIMITS.selectorLength, `must be at most ${DOMAIN_LIMITS.selectorLength} characters`)
  .regex(
    /^(|(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*)$/,
    'must be DNS labels of letters, digits and hyphens (for example s1 or mail-2026)',
  )
  .meta({ description: 'The DKIM selector; left out or "" (not given), one is generated' });

const IpAddress = z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' });

/** `custom_args`: the real service's docs show an object of any values; stored and echoed as given. */
const CustomArgs = z
  .record(
    z.string().max(100, 'keys must be at most 100 characters'),
    z
      .unknown()
      .refine((v) => JSON.stringify(v).length <= DOMAIN_LIMITS.customArgLength, `values must be at most ${DOMAIN_LIMITS.customArgLength} characters as JSON`),
  )
  .refine((args) => Object.keys(args).length <= DOMAIN_LIMITS.customArgs, `must have at most ${DOMAIN_LIMITS.customArgs} keys`);

/** `shared_with_subaccounts`: the spec does not state its type; the real service's docs make it a boolean. */
const SharedWithSubaccounts = z.boolean({ error: 'must be true or false' });

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

/** The names of a domain's records: the keys of `sending_records`, `receiving_records` and verify's `records`. */
export const SENDING_RECORD_NAMES = ['spf', 'dkim', 'return_path'] as const;
export const RECEIVING_RECORD_NAMES = ['mx'] as const;
export type DnsRecordName = (typeof SENDING_RECORD_NAMES)[number] | (typeof RECEIVING_RECORD_NAMES)[number];

/**
 * One DNS record the user must publish, as the real service shows it (`key`, `type`, `value`,
 * `verified`), with Mailyard's extras: the record's `status` (pending until a verification checks it)
 * and, after a failed check, why (`reason`) and what DNS answered (`found`).
 */
export const DnsRecord = z
  .object({
    /** Where it is published: a fully qualified host name, ASCII. */
    key: z.string().meta({ example: 'mailyard._domainkey.mail.example.com' }),
    type: z.enum(DNS_RECORD_TYPES),
    value: z.string(),
    /** Whether the last verification found it as asked; false before the first. */
    verified: z.boolean(),
    status: DomainStatus,
    /** With `--dns-verification real`: what DNS answered at `key` for this type on the last check. */
    found: z.array(z.string()).optional(),
    /** Why the last check failed. */
    reason: z.string().optional(),
  })
  .meta({ id: 'DnsRecord' });
export type DnsRecord = z.infer<typeof DnsRecord>;

/** The records that let the service send for the domain: SPF, DKIM and the return-path CNAME. */
export const SendingRecords = z.object({ spf: DnsRecord, dkim: DnsRecord, return_path: DnsRecord }).meta({ id: 'SendingRecords' });
export type SendingRecords = z.infer<typeof SendingRecords>;

/** The records that bring the domain's mail to the service: the MX, only while inbound routing uses the domain (else `{}`). */
export const ReceivingRecords = z.object({ mx: DnsRecord.optional() }).meta({ id: 'ReceivingRecords' });
export type ReceivingRecords = z.infer<typeof ReceivingRecords>;

/** Every record of the domain by name, as verifyDomain and the DOMAIN_VERIFICATION notification give them. */
export const DomainDnsRecords = SendingRecords.extend({ mx: DnsRecord.optional() }).meta({ id: 'DomainDnsRecords' });
export type DomainDnsRecords = z.infer<typeof DomainDnsRecords>;

/** A sending domain as the service shows it (the documented fields, then Mailyard's). */
export const DomainRecord = z
  .object({
    /** ASCII form, lower-cased (an IDN as punycode): the form used in DNS and in addresses. */
    domain: z.string(),
    /** `domain_` + a ULID, stable for the domain's life; a send's `mailer_id` may name it. */
    mailer_id: z.string().meta({ example: 'domain_01JC3BBW8S9YGX2VNKG5MD7BTA' }),
    is_tenant_domain: z.boolean(),
    /** Whether the domain's last verification found every record. */
    verified: z.boolean(),
    sending_records: SendingRecords,
    receiving_records: ReceivingRecords,
    custom_args: z.record(z.string(), z.unknown()),
    is_tenant_subdomain: z.boolean(),
    shared_with_subaccounts: z.boolean(),
    ips: z.array(z.string()),
    selector: z.string(),
    /** The domain in Unicode (equal to `domain` unless it is an IDN). */
    domain_unicode: z.string(),
    /** pending until the first verification, then that of the last one. */
    status: DomainStatus,
    /** Why the last verification failed; null unless `status` is failed. */
    reason: z.string().nullable(),
    created_at: Timestamp,
    verified_at: Timestamp.nullable(),
    /** When verification last ran; null before the first. */
    checked_at: Timestamp.nullable(),
  })
  .meta({ id: 'Domain' });
export type DomainRecord = z.infer<typeof DomainRecord>;

/** addDomain's and getDomain's answer: flat, the domain beside `success` and `message`. */
export const DomainResponse = DomainRecord.extend({ success: z.literal(true), message: z.string() }).meta({ id: 'DomainResponse' });
export type DomainResponse = z.infer<typeof DomainResponse>;

/** verifyDomain's answer when every record checks out (otherwise a 400 `Invalid DNS records` with the same `records`). */
export const VerifyDomainResponse = z.object({ success: z.literal(true), message: z.string(), records: DomainDnsRecords }).meta({ id: 'VerifyDomainResponse' });
export type VerifyDomainResponse = z.infer<typeof VerifyDomainResponse>;

/** `GET /v1/domains`: the account's domains, each as getDomain shows it (without its `success` and `message`). */
export const DomainListResponse = z.object({ success: z.literal(true), domains: z.array(DomainRecord) }).meta({ id: 'DomainListResponse' });
export type DomainListResponse = z.infer<typeof DomainListResponse>;

export const VERIFICATION_OUTCOMES = ['verified', 'failed'] as const;

/** Control API: the outcome of the domain's next verifications in simulated mode (it stays until changed). */
export const SetVerificationBody = z
  .strictObject({
    outcome: z.enum(VERIFICATION_OUTCOMES, { error: 'must be verified or failed' }),
    reason: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(DOMAIN_LIMITS.reasonLength, `must be at most ${DOMAIN_LIMITS.reasonLength} characters`)
      .optional(),
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
  records: DomainDnsRecords,
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
