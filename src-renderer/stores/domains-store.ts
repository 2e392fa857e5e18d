import { create } from 'zustand';
import { ApiError, ServiceClient } from '../../src-shared/clients';
import type { EmulatorDomain } from '../../src-shared/schemas/domains';
import type { AccountRecord } from '../../src-shared/schemas/emulator';
import { control } from '../api/clients';

interface DomainsState {
  accounts: AccountRecord[];
  domains: EmulatorDomain[];
  loading: boolean;
  /** The last failure, in words. */
  error: string | null;
  /** A short note of what the last action did. */
  notice: string | null;
  /** `warn` when the note announces a failure to come (the next verification set to fail), never shown in green. */
  noticeTone: 'ok' | 'warn';
  /** Key of the action in progress (`verify:<account>:<domain>`, ...), for disabling its button. */
  busy: string | null;
  load: () => Promise<void>;
  add: (accountId: string, domain: string, selector: string) => Promise<boolean>;
  verify: (accountId: string, domain: string) => Promise<void>;
  remove: (accountId: string, domain: string) => Promise<void>;
  setOutcome: (accountId: string, domain: string, outcome: 'verified' | 'failed', reason: string) => Promise<void>;
}

/**
 * A failure in words: the service's `error`, and for a verification the records that did not check
 * out, grouped by reason (`Invalid DNS records: no TXT record found (spf, dkim)`).
 */
export function describe(err: unknown): string {
  if (!(err instanceof ApiError)) return `Cannot reach the emulator: ${(err as Error).message}`;
  const byReason = new Map<string, string[]>();
  for (const [name, record] of Object.entries(err.body.records ?? {})) {
    const reason = (record as { reason?: unknown } | null)?.reason;
    if (typeof reason === 'string') byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
  }
  if (byReason.size === 0) return err.body.error;
  return `${err.body.error}: ${[...byReason].map(([reason, names]) => `${reason} (${names.join(', ')})`).join('; ')}`;
}

/**
 * A failed verification in words, once: which records did not check out (`ui.example did not verify:
 * Invalid DNS records (spf, dkim)`). The reason itself is on the domain's card, not repeated here.
 */
export function describeVerifyFailure(domain: string, err: unknown): string {
  if (!(err instanceof ApiError) || !err.body.records || Object.keys(err.body.records).length === 0) return describe(err);
  const failed = Object.entries(err.body.records)
    .filter(([, r]) => (r as { verified?: unknown } | null)?.verified !== true)
    .map(([name]) => name);
  return `${domain} did not verify: ${err.body.error}${failed.length ? ` (${failed.join(', ')})` : ''}`;
}

export const useDomains = create<DomainsState>((set, get) => {
  /** The service API as the account (its API key): the same requests a user's code makes. */
  const service = (accountId: string) => {
    const account = get().accounts.find((a) => a.id === accountId);
    if (!account) throw new Error('unknown account; reload the page');
    return new ServiceClient({ baseUrl: '', apiKey: account.api_key });
  };

  /**
   * Runs one action: marks it busy, reloads the list after it (after a failure too: a verification
   * that answers 400 has still recorded its check), reports a failure in words.
   */
  const run = async (
    key: string,
    action: () => Promise<string | { notice: string; tone: 'warn' }>,
    describeFailure: (err: unknown) => string = describe,
  ): Promise<boolean> => {
    set({ busy: key, error: null, notice: null });
    try {
      const done = await action();
      await get().load();
      set(typeof done === 'string' ? { notice: done, noticeTone: 'ok' } : { notice: done.notice, noticeTone: done.tone });
      return true;
    } catch (err) {
      await get().load();
      set({ error: describeFailure(err) });
      return false;
    } finally {
      set({ busy: null });
    }
  };

  return {
    accounts: [],
    domains: [],
    loading: true,
    error: null,
    notice: null,
    noticeTone: 'ok',
    busy: null,
    load: async () => {
      try {
        const [accounts, domains] = await Promise.all([control.listAccounts(), control.listEmulatorDomains()]);
        set({ accounts: accounts.data, domains: domains.data, loading: false });
      } catch (err) {
        set({ error: describe(err), loading: false });
      }
    },
    add: (accountId, domain, selector) =>
      run('add', async () => {
        const res = await service(accountId).addDomain({ domain, ...(selector.trim() ? { selector: selector.trim() } : {}) });
        return `${res.domain} added (mailer_id ${res.mailer_id}): publish its records, then verify it`;
      }),
    verify: async (accountId, domain) => {
      await run(
        `verify:${accountId}:${domain}`,
        async () => (await service(accountId).verifyDomain(domain)).message,
        (err) => describeVerifyFailure(domain, err),
      );
    },
    remove: async (accountId, domain) => {
      await run(`delete:${accountId}:${domain}`, async () => {
        await service(accountId).deleteDomain(domain);
        return `${domain} deleted`;
      });
    },
    setOutcome: async (accountId, domain, outcome, reason) => {
      await run(`outcome:${accountId}:${domain}`, async () => {
        const body = outcome === 'failed' && reason.trim() ? { outcome, reason: reason.trim(), account_id: accountId } : { outcome, account_id: accountId };
        const { message } = await control.setDomainVerification(domain, body);
        // Setting a failure up is not a success to show in green.
        return outcome === 'failed' ? { notice: message, tone: 'warn' as const } : message;
      });
    },
  };
});
