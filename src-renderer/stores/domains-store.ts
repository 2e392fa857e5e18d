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
  /** Key of the action in progress (`verify:<account>:<domain>`, ...), for disabling its button. */
  busy: string | null;
  load: () => Promise<void>;
  add: (accountId: string, domain: string, selector: string) => Promise<boolean>;
  verify: (accountId: string, domain: string) => Promise<void>;
  remove: (accountId: string, domain: string) => Promise<void>;
  setOutcome: (accountId: string, domain: string, outcome: 'verified' | 'failed', reason: string) => Promise<void>;
}

const describe = (err: unknown) => (err instanceof ApiError ? err.body.error : `Cannot reach the emulator: ${(err as Error).message}`);

export const useDomains = create<DomainsState>((set, get) => {
  /** The service API as the account (its API key): the same requests a user's code makes. */
  const service = (accountId: string) => {
    const account = get().accounts.find((a) => a.id === accountId);
    if (!account) throw new Error('unknown account; reload the page');
    return new ServiceClient({ baseUrl: '', apiKey: account.api_key });
  };

  /** Runs one action: marks it busy, reloads the list after it, reports a failure in words. */
  const run = async (key: string, action: () => Promise<string>): Promise<boolean> => {
    set({ busy: key, error: null, notice: null });
    try {
      const notice = await action();
      await get().load();
      set({ notice });
      return true;
    } catch (err) {
      set({ error: describe(err) });
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
        return `${res.data.domain} added: publish its records, then verify it`;
      }),
    verify: async (accountId, domain) => {
      await run(`verify:${accountId}:${domain}`, async () => (await service(accountId).verifyDomain(domain)).message);
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
        return (await control.setDomainVerification(domain, body)).message;
      });
    },
  };
});
