import { ulid } from 'ulid';
import type {
  ConfigureInboundDomainBody,
  CreateInboundUsernameBody,
  InboundDomainRecord,
  InboundMessageRecord,
  InboundRule,
  InboundUsernameRecord,
  SimulateInboundBody,
  SimulateInboundResult,
  UpdateInboundDomainBody,
  UpdateInboundUsernameBody,
} from '../../../../src-shared/schemas/inbound';
import { type Clock, isoTimestamp } from '../../clock';
import type { DeliveryTarget, Dispatcher } from '../../dispatch/dispatcher';
import { appError } from '../../error-catalogue';
import type { InboundDomainRow, InboundRepo, InboundUsernameRow } from '../../store/inbound.repo';
import { parseDomainName } from '../domains/hostname';
import {
  composeInbound,
  INBOUND_DOMAIN_TARGET,
  INBOUND_USERNAME_TARGET,
  InboundPosts,
  type InboundRoute,
  type RoutedRecipient,
  toInboundMessageRecord,
} from './inbound-posts';
import { effectiveTarget, toInboundDomainRecord, toInboundUsernameRecord } from './inbound-records';
import { repliedCopyKeys } from './inbound-replies';
import { decideInbound, type InboundDecision } from './inbound-rules';

/** A recipient whose mail the guide's rules refused: not posted. */
export interface InboundRefusal {
  email: string;
  rule: InboundRule;
  reason: string;
}

/** What became of an inbound email's routed recipients: posted (with the rule that accepted each) or refused. */
export interface InboundOutcome {
  posted: Array<RoutedRecipient & { rule: InboundRule }>;
  refused: InboundRefusal[];
}

export interface InboundDeps {
  repo: InboundRepo;
  clock: Clock;
  dispatcher: Pick<Dispatcher, 'enqueue' | 'targetChanged' | 'cancelTarget'>;
  /** The reachability check of a URL being set (422 when it cannot be connected to). */
  checkUrl: (url: string, path: string) => Promise<void>;
  /** Announces each inbound email recorded, accepted or refused (the live stream). */
  announce?: (message: InboundMessageRecord) => void;
}

/**
 * Inbound routing: routes per domain and username (create, update, get, delete), and the delivery of
 * inbound mail, parsed, through the dispatcher (retries and attempt log as for webhooks) to the
 * username's URL, else the domain's.
 */
export class InboundService {
  /** Domains with a route in any account: every SMTP recipient is checked against them. */
  private routed: Set<string> | undefined;
  private readonly posts: InboundPosts;

  constructor(private readonly deps: InboundDeps) {
    this.posts = new InboundPosts(deps);
  }

  /** After a reset wiped the store: nothing read before holds. */
  forgetCached(): void {
    this.routed = undefined;
  }

  /** The domain as stored (lower-case ASCII), or a 400 naming the field. */
  private domainName(input: string, path = 'domain'): string {
    const parsed = parseDomainName(input);
    if ('error' in parsed) throw appError('invalidField', { path, problem: parsed.error });
    return parsed.ascii;
  }

  private findDomain(accountId: string, domain: string): InboundDomainRow {
    const row = this.deps.repo.domain(accountId, this.domainName(domain));
    if (!row) throw appError('inboundDomainNotFound');
    return row;
  }

  private findUsername(accountId: string, domain: string, username: string): { domain: InboundDomainRow; username: InboundUsernameRow } {
    const domainRow = this.findDomain(accountId, domain);
    const row = this.deps.repo.username(domainRow.id, username.toLowerCase());
    if (!row) throw appError('inboundUsernameNotFound');
    return { domain: domainRow, username: row };
  }

  private domainRecord(row: InboundDomainRow): InboundDomainRecord {
    return toInboundDomainRecord(
      row,
      this.deps.repo.usernamesOf(row.id).map((u) => u.username),
    );
  }

  private usernameRecord(domain: InboundDomainRow, row: InboundUsernameRow): InboundUsernameRecord {
    return toInboundUsernameRecord(domain, row);
  }

  async configureDomain(accountId: string, body: ConfigureInboundDomainBody): Promise<InboundDomainRecord> {
    const domain = this.domainName(body.domain);
    if (this.deps.repo.domain(accountId, domain)) throw appError('inboundDomainExists');
    await this.deps.checkUrl(body.url, 'url');
    const now = isoTimestamp(this.deps.clock.now());
    const row: InboundDomainRow = {
      id: ulid(),
      account_id: accountId,
      domain,
      url: body.url,
      method: body.method,
      headers: JSON.stringify(body.headers ?? {}),
      wildcard: body.wildcard === true ? 1 : 0,
      strict_replies: body.strict_replies === true ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    try {
      this.deps.repo.insertDomain(row);
      this.routed = undefined;
    } catch (err) {
      // A concurrent request configured it while the URL was being checked.
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw appError('inboundDomainExists');
      throw err;
    }
    return this.domainRecord(row);
  }

  async updateDomain(accountId: string, domain: string, body: UpdateInboundDomainBody): Promise<InboundDomainRecord> {
    const current = this.findDomain(accountId, domain);
    if (body.url !== undefined && body.url !== current.url) await this.deps.checkUrl(body.url, 'url');
    this.deps.repo.updateDomain({
      id: current.id,
      url: body.url ?? current.url,
      method: body.method ?? current.method,
      headers: body.headers === undefined ? current.headers : JSON.stringify(body.headers),
      wildcard: body.wildcard === undefined ? current.wildcard : body.wildcard ? 1 : 0,
      strict_replies: body.strict_replies === undefined ? current.strict_replies : body.strict_replies ? 1 : 0,
      updated_at: isoTimestamp(this.deps.clock.now()),
    });
    this.routed = undefined;
    // Retries follow the new settings, for the domain and for its usernames that use them.
    this.deps.dispatcher.targetChanged(INBOUND_DOMAIN_TARGET, current.id);
    for (const u of this.deps.repo.usernamesOf(current.id)) this.deps.dispatcher.targetChanged(INBOUND_USERNAME_TARGET, u.id);
    return this.domainRecord(this.deps.repo.domainById(current.id)!);
  }

  getDomain(accountId: string, domain: string): InboundDomainRecord {
    return this.domainRecord(this.findDomain(accountId, domain));
  }

  /** Deletes the route and its usernames; their pending posts are cancelled. */
  deleteDomain(accountId: string, domain: string): void {
    const current = this.findDomain(accountId, domain);
    const usernames = this.deps.repo.usernamesOf(current.id);
    this.deps.repo.deleteDomain(current.id);
    this.routed = undefined;
    this.deps.dispatcher.cancelTarget(INBOUND_DOMAIN_TARGET, current.id);
    for (const u of usernames) this.deps.dispatcher.cancelTarget(INBOUND_USERNAME_TARGET, u.id);
  }

  async createUsername(accountId: string, body: CreateInboundUsernameBody): Promise<InboundUsernameRecord> {
    const domain = this.findDomain(accountId, body.domain);
    const username = body.username.toLowerCase();
    if (this.deps.repo.username(domain.id, username)) throw appError('inboundUsernameExists');
    if (body.url === undefined && (body.method !== undefined || body.headers !== undefined)) {
      const path = body.method !== undefined ? 'method' : 'headers';
      throw appError('inboundNeedsUrl', { path });
    }
    if (body.url !== undefined) await this.deps.checkUrl(body.url, 'url');
    const now = isoTimestamp(this.deps.clock.now());
    const row: InboundUsernameRow = {
      id: ulid(),
      domain_id: domain.id,
      username,
      url: body.url ?? null,
      method: body.url === undefined ? null : (body.method ?? domain.method),
      headers: body.url === undefined ? null : JSON.stringify(body.headers ?? {}),
      created_at: now,
      updated_at: now,
    };
    try {
      this.deps.repo.insertUsername(row);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw appError('inboundUsernameExists');
      throw err;
    }
    return this.usernameRecord(domain, row);
  }

  async updateUsername(accountId: string, domain: string, username: string, body: UpdateInboundUsernameBody): Promise<InboundUsernameRecord> {
    const found = this.findUsername(accountId, domain, username);
    const current = found.username;
    const url = body.url === undefined ? current.url : body.url;
    if (url === null && (body.method !== undefined || body.headers !== undefined)) {
      const path = body.method !== undefined ? 'method' : 'headers';
      throw appError('inboundNeedsUrl', { path });
    }
    if (url !== null && url !== current.url) await this.deps.checkUrl(url, 'url');
    this.deps.repo.updateUsername({
      id: current.id,
      url,
      method: url === null ? null : (body.method ?? current.method ?? found.domain.method),
      headers: url === null ? null : body.headers !== undefined ? JSON.stringify(body.headers) : (current.headers ?? '{}'),
      updated_at: isoTimestamp(this.deps.clock.now()),
    });
    this.deps.dispatcher.targetChanged(INBOUND_USERNAME_TARGET, current.id);
    return this.usernameRecord(found.domain, this.deps.repo.usernameById(current.id)!);
  }

  getUsername(accountId: string, domain: string, username: string): InboundUsernameRecord {
    const found = this.findUsername(accountId, domain, username);
    return this.usernameRecord(found.domain, found.username);
  }

  /**
   * The route of a recipient address: the route of its domain (a subdomain is a domain of its own: the
   * inbound guide's wildcard covers usernames, not subdomains), and the username registered for its
   * local part. Among a domain's routes, the account's own first, else the oldest of any account (mail
   * for a routed domain reaches whoever routes it, as MX records would send it). Undefined when
   * nothing routes the domain; whether the mail is accepted is `decide`'s answer.
   */
  routeFor(accountId: string, email: string): InboundRoute | undefined {
    const at = email.lastIndexOf('@');
    if (at <= 0) return undefined;
    this.routed ??= new Set(this.deps.repo.routedDomains());
    let domain = email.slice(at + 1).toLowerCase();
    if (!/^\p{ASCII}*$/u.test(domain)) {
      // A domain that is not plain ASCII is routed in its IDN (punycode) form.
      const parsed = parseDomainName(domain);
      if ('error' in parsed) return undefined;
      domain = parsed.ascii;
    }
    if (!this.routed.has(domain)) return undefined;
    const routes = this.deps.repo.domainRoutes(domain);
    const route = routes.find((r) => r.account_id === accountId) ?? routes[0];
    if (!route) return undefined;
    const localPart = email.slice(0, at).toLowerCase();
    // `user+tag@` reaches `user` when there is no route for the tagged name itself.
    const username = this.deps.repo.username(route.id, localPart) ?? this.deps.repo.username(route.id, localPart.split('+')[0]!);
    return { accountId: route.account_id, domain: route, username, localPart };
  }

  /**
   * The inbound guide's rules applied to one recipient's mail (see decideInbound). Strict reply mode
   * reads the message's In-Reply-To and References for a Mailyard Message-ID `<key@mailyard.local>`
   * of a copy the route's account sent.
   */
  decide(raw: Buffer, route: InboundRoute): InboundDecision {
    return decideInbound(route, () => repliedCopyKeys(raw).some((key) => this.deps.repo.sentByAccount(key, route.accountId)));
  }

  /** Where a delivery of `kind`/`id` goes now; undefined once the route is gone. */
  resolveTarget(kind: string, id: string): DeliveryTarget | undefined {
    if (kind === INBOUND_DOMAIN_TARGET) {
      const domain = this.deps.repo.domainById(id);
      return domain && effectiveTarget(domain, undefined);
    }
    if (kind === INBOUND_USERNAME_TARGET) {
      const username = this.deps.repo.usernameById(id);
      const domain = username && this.deps.repo.domainById(username.domain_id);
      return domain && effectiveTarget(domain, username);
    }
    return undefined;
  }

  /**
   * An inbound email without SMTP (`POST /emulator/inbound`): composed from fields, or taken raw, and
   * routed exactly as the SMTP sink would route it. Each recipient names the rule that decided it.
   */
  async simulate(accountId: string, body: SimulateInboundBody): Promise<SimulateInboundResult> {
    const raw = body.raw !== undefined ? Buffer.from(body.raw, 'utf8') : await composeInbound(body, new Date(this.deps.clock.now()));
    const routed: Array<{ email: string; route: InboundRoute }> = [];
    const results = new Map<string, SimulateInboundResult['recipients'][number]>();
    for (const email of body.to) {
      const route = this.routeFor(accountId, email);
      if (route) routed.push({ email, route });
      else {
        const domain = email.slice(email.lastIndexOf('@') + 1);
        results.set(email, { email, routed: false, ref_id: null, delivery_id: null, rule: null, reason: `no inbound route for the domain ${domain}` });
      }
    }
    const outcome = await this.deliver(raw, routed, 'api');
    for (const r of outcome.refused) results.set(r.email, { email: r.email, routed: false, ref_id: null, delivery_id: null, rule: r.rule, reason: r.reason });
    for (const r of outcome.posted)
      results.set(r.email, { email: r.email, routed: true, ref_id: r.refId, delivery_id: r.deliveryId, rule: r.rule, reason: null });
    return { recipients: body.to.map((email) => results.get(email)!) };
  }

  /**
   * Posts an inbound email to the route of each recipient the guide's rules accept (see
   * InboundPosts.deliver) and records the others as refused; each with the rule that decided.
   */
  async deliver(raw: Buffer, routed: Array<{ email: string; route: InboundRoute }>, source: 'smtp' | 'api'): Promise<InboundOutcome> {
    const accepted: Array<{ email: string; route: InboundRoute; rule: InboundRule }> = [];
    const refused: Array<InboundRefusal & { route: InboundRoute }> = [];
    for (const r of routed) {
      const decision = this.decide(raw, r.route);
      if (decision.accepted) accepted.push({ ...r, rule: decision.rule });
      else refused.push({ email: r.email, route: r.route, rule: decision.rule, reason: decision.reason! });
    }
    const posted = await this.posts.deliver(raw, accepted, source);
    this.posts.recordRefused(raw, refused, source);
    return { posted: posted.map((p, i) => ({ ...p, rule: accepted[i]!.rule })), refused: refused.map(({ route: _route, ...r }) => r) };
  }

  /** Inbound mail, accepted and refused, newest first, each with the rule that decided (`GET /emulator/inbound/messages`). */
  messages(filter: { refId?: string; accountId?: string; limit: number }): InboundMessageRecord[] {
    return this.deps.repo.list(filter).map(toInboundMessageRecord);
  }
}
