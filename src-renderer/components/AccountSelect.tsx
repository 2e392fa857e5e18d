import { useEffect } from 'react';
import { navigate, usePath, useSearchParam } from '../router';
import type { AccountRecord } from '../../src-shared/schemas/emulator';
import { useOverview } from '../stores/overview-store';

/** A choice of account by name; `anyLabel` adds a first option with an empty value (no account chosen). */
export function AccountSelect(props: {
  accounts: AccountRecord[];
  value: string;
  onChange: (accountId: string) => void;
  anyLabel?: string;
  ariaLabel?: string;
  /** For a visible `<label htmlFor>`. */
  id?: string;
}) {
  // A long name is cut in the closed select: the whole of it shows on hover.
  const chosen = props.accounts.find((a) => a.id === props.value);
  return (
    <select
      id={props.id}
      className="input account-select"
      aria-label={props.ariaLabel}
      title={chosen?.name ?? props.anyLabel}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    >
      {props.anyLabel !== undefined && <option value="">{props.anyLabel}</option>}
      {props.accounts.map((a) => (
        <option key={a.id} value={a.id} title={a.name}>
          {a.name}
        </option>
      ))}
    </select>
  );
}

/** The current URL with `?name=value` set (or removed when empty), other parameters kept. */
export function withParam(name: string, value: string): string {
  const params = new URLSearchParams(window.location.search);
  if (value) params.set(name, value);
  else params.delete(name);
  const search = params.toString();
  return `${window.location.pathname}${search ? `?${search}` : ''}`;
}

/**
 * The account a screen works as: the one chosen, else the default one, else the first. The choice is
 * the URL's `?account=<id>`, so a reload or a shared link keeps it.
 */
export function useChosenAccount(accounts: AccountRecord[]): [AccountRecord | undefined, (accountId: string) => void] {
  const accountId = useSearchParam('account') ?? '';
  const choose = (id: string) => navigate(withParam('account', id), true);
  return [accounts.find((a) => a.id === accountId) ?? accounts.find((a) => a.is_default) ?? accounts[0], choose];
}

/** The screens that list every account's items when no account is chosen (the others work as the default one). */
const LISTS_ALL = ['/messages', '/deliveries'];

/**
 * The one account switcher, in the header: every screen works as (or lists) the account it names. The
 * choice is the URL's `?account=<id>`, which every in-app link and a reload keep. Shown only when
 * there is more than one account.
 */
export function AccountSwitcher() {
  const accounts = useOverview((s) => s.accounts);
  const path = usePath();
  const listsAll = LISTS_ALL.some((p) => path === p || path.startsWith(`${p}/`));
  const [account, choose] = useChosenAccount(accounts);
  const chosenId = useSearchParam('account') ?? '';
  // The chosen account was deleted (or the link names one that never was): back to all accounts or the default one.
  const chosenGone = chosenId !== '' && accounts.length > 0 && !accounts.some((a) => a.id === chosenId);
  useEffect(() => {
    if (chosenGone) navigate(withParam('account', ''), true);
  }, [chosenGone]);
  if (accounts.length <= 1) return null;
  return (
    <AccountSelect
      accounts={accounts}
      value={listsAll ? chosenId : (account?.id ?? '')}
      onChange={choose}
      ariaLabel="Account"
      {...(listsAll ? { anyLabel: 'All accounts' } : {})}
    />
  );
}
