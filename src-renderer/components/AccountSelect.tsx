import { navigate, useSearchParam } from '../router';
import type { AccountRecord } from '../../src-shared/schemas/emulator';

/** A choice of account by name; `anyLabel` adds a first option with an empty value (no account chosen). */
export function AccountSelect(props: {
  accounts: AccountRecord[];
  value: string;
  onChange: (accountId: string) => void;
  anyLabel?: string;
  ariaLabel?: string;
}) {
  return (
    <select className="input" aria-label={props.ariaLabel} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
      {props.anyLabel !== undefined && <option value="">{props.anyLabel}</option>}
      {props.accounts.map((a) => (
        <option key={a.id} value={a.id}>
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

/** "Account [select]", shown only when there is more than one account to choose from. */
export function AccountPicker(props: {
  accounts: AccountRecord[];
  account: AccountRecord | undefined;
  onChange: (accountId: string) => void;
  className?: string;
}) {
  if (props.accounts.length <= 1) return null;
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: AccountSelect renders the <select> this label names
    <label className={props.className}>
      Account <AccountSelect accounts={props.accounts} value={props.account?.id ?? ''} onChange={props.onChange} />
    </label>
  );
}
