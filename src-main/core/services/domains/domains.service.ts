import { createPublicKey, generateKeyPair } from 'node:crypto';
import { domainToUnicode } from 'node:url';
import { promisify } from 'node:util';
import { ulid } from 'ulid';
import type {
  AddDomainBody,
  DomainCheck,
  DomainDnsRecords,
  DomainRecord,
  DomainStatus,
  EmulatorDomain,
  SetVerificationBody,
} from '../../../../src-shared/schemas/domains';
import { DomainVerificationPayload } from '../../../../src-shared/schemas/events';
import { isoTimestamp, type Clock } from '../../clock';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { AppError } from '../../errors';
import type { DomainRow, DomainsRepo } from '../../store/domains.repo';
import type { UnitOfWork } from '../../store/unit-of-work';
import type { WebhooksRepo } from '../../store/webhooks.repo';
import { WEBHOOK_TARGET } from '../email-events.service';
import { checkInDns, dnsRecordsFor, recordName, toPublished, toRecordMap, withMx, type DnsRecord, type DnsResolver } from './dns-records';
import { domainOfAddress, parseDomainName } from './hostname';

export const DEFAULT_DKIM_SELECTOR = 'mailyard';
/** A domain's `mailer_id` is this prefix and a ULID. */
export const DOMAIN_MAILER_ID_PREFIX = 'domain_';
export const DNS_VERIFICATION_MODES = ['simulated', 'real'] as const;
export type DnsVerificationMode = (typeof DNS_VERIFICATION_MODES)[number];

/** What `--dns-verification` and the seams give the service. */
export interface DomainsDeps {
  repo: DomainsRepo;
  /** A check's record and the notification of its status change commit together. */
  unitOfWork: UnitOfWork;
  webhooks: WebhooksRepo;
  dispatcher: Dispatcher;
  clock: Clock;
  mode: DnsVerificationMode;
  /** Used in real mode. */
  resolver: DnsResolver;
  /** Whether the account's inbound routing uses the domain (then an MX record is listed). */
  inboundRouted?: (accountId: string, domain: string) => boolean;
  /** A DKIM key pair: PKCS#8 PEM private key, base64 DER SubjectPublicKeyInfo public key. */
  generateKey?: () => Promise<DkimKeyPair>;
}

export interface DkimKeyPair {
  privateKeyPem: string;
  publicKeyBase64: string;
}

/** What the composer needs to sign a message of the domain. */
export interface DkimSigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

const generateRsa = promisify(generateKeyPair);

/** A real RSA-2048 key, generated off the main thread. */
export async function generateDkimKey(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyBase64: publicKey.toString('base64') };
}

interface DomainOptions {
  custom_args: Record<string, unknown>;
  is_tenant_domain: boolean;
  is_tenant_subdomain: boolean;
  /** Stored by earlier versions as a list of subaccount ids too: a non-empty list reads as true. */
  shared_with_subaccounts: boolean | string[];
  ips: string[];
}

const DEFAULT_FAILURE = 'the verification outcome was set to failed (PUT /emulator/domains/{domain}/verification)';
const CHECKS_KEPT = 20;

const notFound = () => new AppError('not_found', 'Domain Not Found');
/** verifyDomain's answer when a record does not check out (400), with every record's outcome. */
const invalidRecords = (records: DomainDnsRecords) => new AppError('validation', 'Invalid DNS records', undefined, { records });
const exists = () => new AppError('conflict', 'Domain Already Exists');

/** The domain as typed, in its DNS form; a 400 naming the problem when it is not a domain. */
function domainName(input: string, path = 'domain'): { ascii: string; unicode: string } {
  const parsed = parseDomainName(input);
  if ('error' in parsed) throw new AppError('validation', `${path} ${parsed.error}`, [{ path, message: parsed.error }]);
  return parsed;
}

function toRecord(row: DomainRow, routed: boolean): DomainRecord {
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

/** The DKIM public key (base64 DER) of a stored private key: the published value is derived, never stored twice. */
function publicKeyOf(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' }).toString('base64');
}

/** At most this many answers of signingKey() are kept in memory. */
const SIGNING_KEYS_KEPT = 1_000;

/**
 * Sending domains: the records a user must publish, a DKIM key per domain, verification (simulated
 * or in real DNS), and a DOMAIN_VERIFICATION notification on every status change.
 */
export class DomainsService {
  /**
   * signingKey() answers by account and sender domain, read on every send: kept in memory (null for "none")
   * and forgotten whenever a domain is added, checked or deleted. At most SIGNING_KEYS_KEPT entries.
   */
  private readonly signingKeys = new Map<string, DkimSigningKey | null>();

  constructor(private readonly deps: DomainsDeps) {}

  async add(accountId: string, body: AddDomainBody): Promise<DomainRecord> {
    const { ascii } = domainName(body.domain);
    const { repo, clock } = this.deps;
    if (repo.find(accountId, ascii)) throw exists();
    const key = await (this.deps.generateKey ?? generateDkimKey)();
    const selector = (body.selector ?? DEFAULT_DKIM_SELECTOR).toLowerCase();
    const nowMs = clock.now();
    const now = isoTimestamp(nowMs);
    const options: DomainOptions = {
      custom_args: body.custom_args ?? {},
      is_tenant_domain: body.is_tenant_domain ?? false,
      is_tenant_subdomain: body.is_tenant_subdomain ?? false,
      shared_with_subaccounts: body.shared_with_subaccounts ?? false,
      ips: body.ips ?? [],
    };
    const row: DomainRow = {
      id: ulid(),
      mailer_id: `${DOMAIN_MAILER_ID_PREFIX}${ulid(nowMs)}`,
      account_id: accountId,
      domain: ascii,
      selector,
      options: JSON.stringify(options),
      status: 'pending',
      reason: null,
      records: JSON.stringify(dnsRecordsFor(ascii, selector, key.publicKeyBase64)),
      dkim_private_key: key.privateKeyPem,
      next_outcome: 'verified',
      next_reason: null,
      created_at: now,
      updated_at: now,
      verified_at: null,
      checked_at: null,
    };
    // A concurrent add may have won while the key was being generated.
    if (!repo.insert(row)) throw exists();
    this.signingKeys.clear();
    return this.toRecord(row);
  }

  /** After a reset wiped the store: nothing read before holds. */
  forgetCached(): void {
    this.signingKeys.clear();
  }

  get(accountId: string, domain: string): DomainRecord {
    return this.toRecord(this.row(accountId, domain));
  }

  list(accountId: string): DomainRecord[] {
    return this.deps.repo.list(accountId).map((row) => this.toRecord(row));
  }

  delete(accountId: string, domain: string): void {
    const { ascii } = domainName(domain);
    if (!this.deps.repo.delete(accountId, ascii)) throw notFound();
    this.signingKeys.clear();
  }

  /**
   * Verifies the domain now. Simulated: the outcome set through the control API (verified unless set
   * to failed). Real: each record looked up in DNS (a failed outcome set through the control API still
   * wins). A status change sends a DOMAIN_VERIFICATION notification; the same status again sends none.
   * Answers every record by name when all check out; otherwise throws `Invalid DNS records` (400) with them.
   */
  async verify(accountId: string, domain: string): Promise<DomainDnsRecords> {
    const before = this.row(accountId, domain);
    const { repo, clock, mode } = this.deps;
    const routed = this.routed(before);
    const stored = withMx(JSON.parse(before.records) as DnsRecord[], before.domain, routed);
    let records: DnsRecord[];
    let reason: string | null = null;
    if (before.next_outcome === 'failed') {
      reason = before.next_reason ?? DEFAULT_FAILURE;
      records = stored.map((r) => ({ type: r.type, host: r.host, value: r.value, status: 'failed', reason: reason! }));
    } else if (mode === 'real') {
      // The published values are derived from the key, so a record never disagrees with the key that signs.
      const expected = withMx(dnsRecordsFor(before.domain, before.selector, publicKeyOf(before.dkim_private_key)), before.domain, routed);
      records = await checkInDns(expected, this.deps.resolver);
      const failed = records.filter((r) => r.status !== 'verified');
      if (failed.length) reason = failed.map((r) => `${r.type} ${r.host}: ${r.reason}`).join('; ');
    } else {
      records = stored.map((r) => ({ type: r.type, host: r.host, value: r.value, status: 'verified' }));
    }
    const status: DomainStatus = reason === null ? 'verified' : 'failed';

    const now = clock.now();
    const at = isoTimestamp(now);
    // Read again: the DNS check is asynchronous, and another verification may have changed the status meanwhile.
    const current = repo.findById(before.id);
    if (!current) throw notFound();
    const previous = current.status;
    const recordsJson = JSON.stringify(records);
    const updated = this.deps.unitOfWork.run(() => {
      const recorded = repo.recordCheck(
        {
          id: current.id,
          status,
          reason,
          records: recordsJson,
          updated_at: at,
          verified_at: status !== 'verified' ? null : previous === 'verified' ? current.verified_at : at,
          checked_at: at,
        },
        { domain_id: current.id, mode, status, reason, records: recordsJson, checked_at: at },
      );
      if (recorded && previous !== status) this.notify(current, previous, status, records, reason, at);
      return recorded;
    });
    this.signingKeys.clear();
    if (!updated) throw notFound();
    const byName = toRecordMap(records);
    // The failed check is recorded (and notified) before the 400 that reports it.
    if (status !== 'verified') throw invalidRecords(byName);
    return byName;
  }

  /** Control API: the outcome of the domain's next verifications, in one account or every account that has it. */
  setVerification(domain: string, body: SetVerificationBody): { domain: string; outcome: 'verified' | 'failed'; reason: string | null; accounts: number } {
    const { ascii } = domainName(domain);
    const rows = body.account_id === undefined ? this.deps.repo.findByName(ascii) : [this.deps.repo.find(body.account_id, ascii)].filter((r) => r !== undefined);
    if (rows.length === 0) throw notFound();
    const reason = body.outcome === 'failed' ? (body.reason ?? null) : null;
    for (const row of rows) this.deps.repo.setOutcome(row.id, body.outcome, reason);
    return { domain: ascii, outcome: body.outcome, reason: body.outcome === 'failed' ? (reason ?? DEFAULT_FAILURE) : null, accounts: rows.length };
  }

  /** Control API: every account's domains with their outcome setting and recent checks. */
  listAll(): EmulatorDomain[] {
    return this.deps.repo.listAll().map((row) => ({
      ...this.toRecord(row),
      account_id: row.account_id,
      verification: { outcome: row.next_outcome, reason: row.next_outcome === 'failed' ? (row.next_reason ?? DEFAULT_FAILURE) : null },
      checks: this.deps.repo.checks(row.id, CHECKS_KEPT).map(
        (c): DomainCheck => ({ checked_at: c.checked_at, mode: c.mode, status: c.status, reason: c.reason, records: toRecordMap(JSON.parse(c.records) as DnsRecord[]) }),
      ),
    }));
  }

  /** The key that signs mail from `fromEmail` for the account: only for a verified domain of its own. */
  signingKey(accountId: string, fromEmail: string): DkimSigningKey | undefined {
    const cacheKey = `${accountId}\n${fromEmail.slice(fromEmail.lastIndexOf('@') + 1).toLowerCase()}`;
    const cached = this.signingKeys.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    const domain = domainOfAddress(fromEmail);
    const row = domain === undefined ? undefined : this.deps.repo.signingKey(accountId, domain);
    const key = row ? { domainName: domain!, keySelector: row.selector, privateKey: row.dkim_private_key } : null;
    if (this.signingKeys.size >= SIGNING_KEYS_KEPT) this.signingKeys.clear();
    this.signingKeys.set(cacheKey, key);
    return key ?? undefined;
  }

  /**
   * The account's domain whose `mailer_id` this is (a send's `mailer_id` may name one), with its status;
   * undefined when the account has none of that id.
   */
  findByMailerId(accountId: string, mailerId: string): { domain: string; status: DomainStatus } | undefined {
    if (!mailerId.startsWith(DOMAIN_MAILER_ID_PREFIX)) return undefined;
    return this.deps.repo.findByMailerId(accountId, mailerId);
  }

  private routed(row: DomainRow): boolean {
    return this.deps.inboundRouted?.(row.account_id, row.domain) ?? false;
  }

  private toRecord(row: DomainRow): DomainRecord {
    return toRecord(row, this.routed(row));
  }

  private row(accountId: string, domain: string): DomainRow {
    const { ascii } = domainName(domain);
    const row = this.deps.repo.find(accountId, ascii);
    if (!row) throw notFound();
    return row;
  }

  /** A DOMAIN_VERIFICATION notification to the account's webhook of that category, through the dispatcher. */
  private notify(row: DomainRow, previous: DomainStatus, status: DomainStatus, records: DnsRecord[], reason: string | null, at: string): void {
    const webhook = this.deps.webhooks.find(row.account_id, 'DOMAIN_VERIFICATION');
    if (!webhook) return;
    const payload = DomainVerificationPayload.parse({
      event: 'domain_verification',
      timestamp: at,
      domain: row.domain,
      status,
      previous_status: previous,
      mailer_id: row.mailer_id,
      records: toRecordMap(records),
      ...(status === 'failed' && reason !== null ? { reason } : {}),
    });
    this.deps.dispatcher.enqueue({
      accountId: row.account_id,
      target: { kind: WEBHOOK_TARGET, id: webhook.id, url: webhook.url },
      category: 'DOMAIN_VERIFICATION',
      event: 'domain_verification',
      refId: null,
      payload,
    });
    // Stored with the status change, in its transaction.
    this.deps.dispatcher.commitEnqueued();
  }
}
