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
import { type Clock, isoTimestamp } from '../../clock';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { appError } from '../../error-catalogue';
import type { DomainRow, DomainsRepo } from '../../store/domains.repo';
import type { UnitOfWork } from '../../store/unit-of-work';
import type { WebhooksRepo } from '../../store/webhooks.repo';
import { WEBHOOK_TARGET } from '../webhooks.service';
import { DEFAULT_DKIM_SELECTOR, type DkimKeyPair, type DkimSigningKey, generateDkimKey } from './dkim-keys';
import { type DnsRecord, type DnsResolver, dnsRecordsFor, toRecordMap } from './dns-records';
import { type DomainOptions, domainName, toDomainRecord } from './domain-records';
import { domainOfAddress } from './hostname';
import { checkRecords, DEFAULT_FAILURE, type DnsVerificationMode, type RecordsCheck, verificationPayload } from './verification';

/** A domain's `mailer_id` is this prefix and a ULID. */
export const DOMAIN_MAILER_ID_PREFIX = 'domain_';

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
  /** A DKIM key pair (default: a real RSA-2048 key). */
  generateKey?: () => Promise<DkimKeyPair>;
}

const CHECKS_KEPT = 20;

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
    if (repo.find(accountId, ascii)) throw appError('domainExists');
    const key = await (this.deps.generateKey ?? generateDkimKey)();
    // "" is a selector not given, as a typed client sends a field it does not set.
    const selector = (body.selector || DEFAULT_DKIM_SELECTOR).toLowerCase();
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
    if (!repo.insert(row)) throw appError('domainExists');
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
    if (!this.deps.repo.delete(accountId, ascii)) throw appError('domainNotFound');
    this.signingKeys.clear();
  }

  /**
   * Verifies the domain now (see checkRecords). A status change sends a DOMAIN_VERIFICATION
   * notification; the same status again sends none. Answers every record by name when all check out;
   * otherwise throws `Invalid DNS records` (400) with them.
   */
  async verify(accountId: string, domain: string): Promise<DomainDnsRecords> {
    const before = this.row(accountId, domain);
    const { repo, clock, mode } = this.deps;
    const check = await checkRecords(before, this.routed(before), mode, this.deps.resolver);
    const { records, status, reason } = check;

    const now = clock.now();
    const at = isoTimestamp(now);
    // Read again: the DNS check is asynchronous, and another verification may have changed the status meanwhile.
    const current = repo.findById(before.id);
    if (!current) throw appError('domainNotFound');
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
      if (recorded && previous !== status) this.notify(current, previous, check, at);
      return recorded;
    });
    this.signingKeys.clear();
    if (!updated) throw appError('domainNotFound');
    const byName = toRecordMap(records);
    // The failed check is recorded (and notified) before the 400 that reports it.
    if (status !== 'verified') throw appError('invalidDnsRecords', { records: byName });
    return byName;
  }

  /** Control API: the outcome of the domain's next verifications, in one account or every account that has it. */
  setVerification(domain: string, body: SetVerificationBody): { domain: string; outcome: 'verified' | 'failed'; reason: string | null; accounts: number } {
    const { ascii } = domainName(domain);
    const rows =
      body.account_id === undefined ? this.deps.repo.findByName(ascii) : [this.deps.repo.find(body.account_id, ascii)].filter((r) => r !== undefined);
    if (rows.length === 0) throw appError('domainNotFound');
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
        (c): DomainCheck => ({
          checked_at: c.checked_at,
          mode: c.mode,
          status: c.status,
          reason: c.reason,
          records: toRecordMap(JSON.parse(c.records) as DnsRecord[]),
        }),
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
    return toDomainRecord(row, this.routed(row));
  }

  private row(accountId: string, domain: string): DomainRow {
    const { ascii } = domainName(domain);
    const row = this.deps.repo.find(accountId, ascii);
    if (!row) throw appError('domainNotFound');
    return row;
  }

  /** A DOMAIN_VERIFICATION notification to the account's webhook of that category, through the dispatcher. */
  private notify(row: DomainRow, previous: DomainStatus, check: RecordsCheck, at: string): void {
    const webhook = this.deps.webhooks.find(row.account_id, 'DOMAIN_VERIFICATION');
    if (!webhook) return;
    this.deps.dispatcher.enqueue({
      accountId: row.account_id,
      target: { kind: WEBHOOK_TARGET, id: webhook.id, url: webhook.url },
      category: 'DOMAIN_VERIFICATION',
      event: 'domain_verification',
      refId: null,
      payload: verificationPayload(row, previous, check, at),
    });
    // Stored with the status change, in its transaction.
    this.deps.dispatcher.commitEnqueued();
  }
}
