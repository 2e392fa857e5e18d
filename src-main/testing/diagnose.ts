/**
 * Why a wait may never match, read from the emulator's set-up when it times out: an account the
 * filter names that does not exist, no webhook for the event kind waited for, a recipient on the
 * suppression list, the clock paused or the next scheduled event still ahead on it. Each reason comes
 * with how to change it. A time-out that has none of these says only what arrived.
 */
import { type ControlClient, ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../src-shared/events';
import type { AccountRecord } from '../../src-shared/schemas/emulator';
import type { DeliveryFilter, MessageFilter } from './types';

export interface DiagnoseDeps {
  url: string;
  apiKey: string;
  control: ControlClient;
}

/** At most this many accounts are looked at for webhooks and suppressions (a store of scenario runs can hold many). */
const ACCOUNTS_LOOKED_AT = 10;

const isEmailKind = (event: string): event is EmailEventKind => (EMAIL_EVENT_KINDS as readonly string[]).includes(event);

function accountName(account: AccountRecord, handleKey: string): string {
  const notes = [account.is_default ? 'the default account' : JSON.stringify(account.name), account.api_key === handleKey ? "the handle's" : ''];
  return `account ${account.id} (${notes.filter(Boolean).join(', ')})`;
}

/** `{ delivery: true, spam: true }`, as code. */
const eventsCode = (kinds: string[]) => `{ ${kinds.map((k) => `${k}: true`).join(', ')} }`;

/** The accounts a filter can match: the one it names, or all of them. `undefined`: it names one that does not exist. */
function inScope(accounts: AccountRecord[], accountId: string | undefined): AccountRecord[] | undefined {
  if (accountId === undefined) return accounts;
  const named = accounts.filter((a) => a.id === accountId);
  return named.length > 0 ? named : undefined;
}

/** The delivery kind a filter waits for, when it is one a webhook of the account must take: an email event kind, or a domain notification. */
function webhookKind(filter: DeliveryFilter): { category: 'EMAIL_EVENT'; event?: EmailEventKind } | { category: 'DOMAIN_VERIFICATION' } | undefined {
  const { event, category } = filter;
  if (event !== undefined && isEmailKind(event) && (category === undefined || category === 'EMAIL_EVENT')) return { category: 'EMAIL_EVENT', event };
  if (event === undefined && category === 'EMAIL_EVENT') return { category: 'EMAIL_EVENT' };
  if ((event === 'domain_verification' || event === undefined) && category === 'DOMAIN_VERIFICATION') return { category: 'DOMAIN_VERIFICATION' };
  if (event === 'domain_verification' && category === undefined) return { category: 'DOMAIN_VERIFICATION' };
  return undefined;
}

/** Why no account in scope can get a delivery of `kind`, with how to add the webhook; empty when one can. */
async function missingWebhook(deps: DiagnoseDeps, accounts: AccountRecord[], kind: NonNullable<ReturnType<typeof webhookKind>>): Promise<string[]> {
  const what = kind.category === 'DOMAIN_VERIFICATION' ? 'domain verification notices' : kind.event ? `${kind.event} events` : 'email events';
  if (accounts.length === 0) return [];
  const lacking: string[] = [];
  let enabled: string[] | undefined;
  for (const account of accounts) {
    const webhooks = (await new ServiceClient({ baseUrl: deps.url, apiKey: account.api_key }).listWebhooks()).data;
    const webhook = webhooks.find((w) => w.event === kind.category);
    if (!webhook) {
      lacking.push(`${accountName(account, deps.apiKey)} has no ${kind.category} webhook`);
      continue;
    }
    if (kind.category === 'DOMAIN_VERIFICATION' || !kind.event) return [];
    const flags = webhook.webhook_options?.events ?? {};
    if ((flags as Record<string, boolean>)[kind.event]) return [];
    const on = Object.entries(flags)
      .filter(([, enabled]) => enabled)
      .map(([k]) => k);
    lacking.push(
      `${accountName(account, deps.apiKey)} has an EMAIL_EVENT webhook (${webhook.webhook_url}) that takes ${on.length > 0 ? on.join(', ') : 'no kind'}, not ${kind.event}`,
    );
    enabled ??= on;
  }
  const lines = [`No webhook takes ${what}, so no such delivery can arrive: ${lacking.join('; ')}.`];
  if (kind.category === 'DOMAIN_VERIFICATION') {
    lines.push(
      "Add one: yard.service.registerWebhook({ webhook_url, event: 'DOMAIN_VERIFICATION', method: 'POST' }) (with the API key of the account that owns the domain).",
    );
  } else if (enabled && kind.event) {
    lines.push(
      `Enable it: yard.service.updateWebhook({ event: 'EMAIL_EVENT', webhook_options: { events: ${eventsCode([...enabled, kind.event])} } }) (the events are replaced whole), or yard.createCatcher({ useAsWebhook: true }) for a receiver inside Mailyard that takes every kind.`,
    );
  } else {
    const events = kind.event ? eventsCode([kind.event]) : '{ delivery: true, bounce: true, ... }';
    lines.push(
      `Add one: yard.service.registerWebhook({ webhook_url, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: ${events} } }), or yard.createCatcher({ useAsWebhook: true }) for a receiver inside Mailyard that takes every kind.`,
    );
  }
  return lines;
}

/** The recipient's entries on the suppression lists of the accounts in scope: copies to it fail at once, with no events. */
async function suppressed(deps: DiagnoseDeps, accounts: AccountRecord[], recipient: string): Promise<string[]> {
  const lines: string[] = [];
  for (const account of accounts) {
    const list = (await deps.control.listSuppressions({ account_id: account.id })).data.suppressions;
    const entry = list.find((s) => s.email.toLowerCase() === recipient.toLowerCase());
    if (!entry) continue;
    lines.push(
      `${entry.email} is on the suppression list of ${accountName(account, deps.apiKey)} since ${entry.since} (${entry.source}): its copies fail at once (status failed), with no events and no webhook deliveries.`,
      `Lift it: yard.control.removeSuppression(${JSON.stringify(entry.email)}, { account_id: ${JSON.stringify(account.id)} }).`,
    );
  }
  return lines;
}

/** The clock, when scheduled events wait for it: paused, or the next one still ahead. */
async function clockHoldsBack(deps: DiagnoseDeps): Promise<string[]> {
  const clock = (await deps.control.getClock()).data;
  const next = clock.next_event_at ?? clock.next_due_at;
  if (next === null) return [];
  const ahead = Date.parse(next) - clock.now_ms;
  if (clock.speed === 0) {
    return [
      `The emulator clock is paused (speed 0): scheduled email events (the next at ${next}) and webhook retries (${clock.pending_deliveries} pending) wait for it to move.`,
      'Move it: yard.advanceClock(ms) (it resolves once what fell due has happened), or let it run: yard.control.setClock({ speed: 1 }).',
    ];
  }
  if (ahead <= 0) return [];
  return [
    `Scheduled events are still ahead on the emulator clock (the next at ${next}, in ${Math.ceil(ahead / 1000)} s at speed ${clock.speed}): if the one waited for is among them, yard.advanceClock(${Math.ceil(ahead)}) brings it now.`,
  ];
}

/** What a filter's account id says when no account has it. */
function unknownAccount(accountId: string, accounts: AccountRecord[], handleKey: string): string[] {
  const known = accounts
    .slice(0, ACCOUNTS_LOOKED_AT)
    .map((a) => accountName(a, handleKey))
    .join('; ');
  return [
    `There is no account ${accountId}, so nothing can match its account_id. The accounts: ${known}${accounts.length > ACCOUNTS_LOOKED_AT ? '; ...' : ''}.`,
  ];
}

/** The reasons a delivery wait's filter may never match (empty when the set-up explains nothing). */
export async function diagnoseDeliveryWait(deps: DiagnoseDeps, filter: DeliveryFilter): Promise<string[]> {
  const accounts = (await deps.control.listAccounts()).data;
  const scope = inScope(accounts, filter.account_id);
  if (!scope) return unknownAccount(filter.account_id!, accounts, deps.apiKey);
  const looked = scope.slice(0, ACCOUNTS_LOOKED_AT);
  const kind = webhookKind(filter);
  const lines = kind ? await missingWebhook(deps, looked, kind) : [];
  if (filter.recipient !== undefined) lines.push(...(await suppressed(deps, looked, filter.recipient)));
  if (kind?.category !== 'DOMAIN_VERIFICATION') lines.push(...(await clockHoldsBack(deps)));
  return lines;
}

/** The reasons a message wait's filter may never match (empty when the set-up explains nothing). */
export async function diagnoseMessageWait(deps: DiagnoseDeps, filter: MessageFilter): Promise<string[]> {
  const accounts = (await deps.control.listAccounts()).data;
  const scope = inScope(accounts, filter.account_id);
  if (!scope) return unknownAccount(filter.account_id!, accounts, deps.apiKey);
  // A copy is stored with its send whatever the clock and the suppression list say (a suppressed
  // recipient's as failed at once); an event, and a status other than queued, wait for the clock.
  const lines: string[] = [];
  const wantsMoreThanFailed = filter.event !== undefined || (filter.status !== undefined && filter.status !== 'failed');
  if (filter.recipient !== undefined && wantsMoreThanFailed) lines.push(...(await suppressed(deps, scope.slice(0, ACCOUNTS_LOOKED_AT), filter.recipient)));
  if (filter.event !== undefined || (filter.status !== undefined && filter.status !== 'queued')) lines.push(...(await clockHoldsBack(deps)));
  return lines;
}
