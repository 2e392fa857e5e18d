import { ulid } from 'ulid';
import { EMAIL_EVENT_KINDS, type WebhookEvent } from '../../../src-shared/events';
import type { DeleteWebhookBody, RegisterWebhookBody, ResolvedEventFlags, UpdateWebhookBody, WebhookRecord } from '../../../src-shared/schemas/webhooks';
import { type Clock, isoTimestamp } from '../clock';
import { appError } from '../error-catalogue';
import type { WebhookRow, WebhooksRepo } from '../store/webhooks.repo';
import { checkUrl, type WebhookUrlPolicy } from './url-check';

/** The dispatcher's target kind of a registered webhook (`webhook:<id>`): where its deliveries go. */
export const WEBHOOK_TARGET = 'webhook';

type Options = RegisterWebhookBody['webhook_options'];

function toRecord(row: WebhookRow): WebhookRecord {
  return {
    event: row.event,
    webhook_url: row.url,
    method: row.method,
    headers: JSON.parse(row.headers) as Record<string, string>,
    ...(row.events ? { webhook_options: { events: JSON.parse(row.events) as ResolvedEventFlags } } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Rules 2 and 3 of the contract: the event filter an EMAIL_EVENT webhook needs, and that a
 * DOMAIN_VERIFICATION webhook must not have. Returns a resolved flag per event kind, `null` for a
 * DOMAIN_VERIFICATION webhook, or `undefined` when an update leaves the filter as it is.
 */
function resolveFlags(event: WebhookEvent, options: Options, required: boolean): ResolvedEventFlags | null | undefined {
  if (event === 'DOMAIN_VERIFICATION') {
    if (options?.events !== undefined) {
      throw appError('eventsForDomainVerification');
    }
    return null;
  }
  if (options === undefined && !required) return undefined;
  const flags = Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, options?.events?.[k] === true])) as ResolvedEventFlags;
  if (!Object.values(flags).some(Boolean)) {
    throw appError('noEventEnabled');
  }
  return flags;
}

/** What the event path needs of an account's EMAIL_EVENT webhook. */
export interface EmailEventFilter {
  webhookId: string;
  url: string;
  enabled: ResolvedEventFlags;
}

export interface WebhooksDeps {
  repo: WebhooksRepo;
  clock: Clock;
  /** How a webhook URL being set is checked (`--strict-webhook-urls`, reachability). */
  urlPolicy: WebhookUrlPolicy;
  /** Told of every change to a webhook: retries read it afresh, and a deleted one's pending deliveries are cancelled. */
  onChanged: (webhookId: string, deleted: boolean) => void;
}

export class WebhooksService {
  /** EMAIL_EVENT filters by account (null: none), read on every event; dropped on every change. */
  private readonly filters = new Map<string, EmailEventFilter | null>();

  constructor(private readonly deps: WebhooksDeps) {}

  /** The account's EMAIL_EVENT webhook and its enabled kinds, or null when it has none. */
  emailEventFilter(accountId: string): EmailEventFilter | null {
    let filter = this.filters.get(accountId);
    if (filter === undefined) {
      const row = this.deps.repo.find(accountId, 'EMAIL_EVENT');
      filter = row ? { webhookId: row.id, url: row.url, enabled: JSON.parse(row.events ?? '{}') as ResolvedEventFlags } : null;
      this.filters.set(accountId, filter);
    }
    return filter;
  }

  /** After a reset wiped the store: nothing read before holds. */
  forgetCached(): void {
    this.filters.clear();
  }

  list(accountId: string): WebhookRecord[] {
    return this.deps.repo.list(accountId).map(toRecord);
  }

  get(accountId: string, event: WebhookEvent): WebhookRecord | undefined {
    const row = this.deps.repo.find(accountId, event);
    return row ? toRecord(row) : undefined;
  }

  async register(accountId: string, body: RegisterWebhookBody): Promise<void> {
    const flags = resolveFlags(body.event, body.webhook_options, true);
    if (this.deps.repo.find(accountId, body.event)) throw appError('webhookExists');
    await this.checkUrl(body.webhook_url);
    const now = isoTimestamp(this.deps.clock.now());
    const inserted = this.deps.repo.insert({
      id: ulid(),
      account_id: accountId,
      event: body.event,
      url: body.webhook_url,
      method: body.method,
      headers: JSON.stringify(body.headers ?? {}),
      events: flags ? JSON.stringify(flags) : null,
      created_at: now,
      updated_at: now,
    });
    // A concurrent registration may have won while the URL was being checked.
    if (!inserted) throw appError('webhookExists');
    this.filters.delete(accountId);
  }

  async update(accountId: string, body: UpdateWebhookBody): Promise<void> {
    const flags = resolveFlags(body.event, body.webhook_options, false);
    const current = this.deps.repo.find(accountId, body.event);
    if (!current) throw appError('webhookNotFound');
    if (body.webhook_url !== undefined && body.webhook_url !== current.url) await this.checkUrl(body.webhook_url);
    const updated = this.deps.repo.update({
      id: current.id,
      url: body.webhook_url ?? current.url,
      method: body.method ?? current.method,
      headers: body.headers !== undefined ? JSON.stringify(body.headers) : current.headers,
      events: flags === undefined ? current.events : flags && JSON.stringify(flags),
      updated_at: isoTimestamp(this.deps.clock.now()),
    });
    // Deleted while the URL was being checked.
    if (!updated) throw appError('webhookNotFound');
    this.filters.delete(accountId);
    this.deps.onChanged(current.id, false);
  }

  /** Deletes the webhook; no request goes to it afterwards, retries already scheduled included. */
  delete(accountId: string, body: DeleteWebhookBody): void {
    const current = this.deps.repo.find(accountId, body.event);
    if (!current || !this.deps.repo.delete(accountId, body.event)) throw appError('webhookNotFound');
    this.filters.delete(accountId);
    this.deps.onChanged(current.id, true);
  }

  private checkUrl(value: string): Promise<void> {
    return checkUrl(this.deps.urlPolicy, value, 'webhook_url');
  }
}
