import { useState } from 'react';
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

/** The account a screen works as: the one chosen, else the default one, else the first. */
export function useChosenAccount(accounts: AccountRecord[]): [AccountRecord | undefined, (accountId: string) => void] {
  const [accountId, setAccountId] = useState('');
  return [accounts.find((a) => a.id === accountId) ?? accounts.find((a) => a.is_default) ?? accounts[0], setAccountId];
}

/** "Account [select]", shown only when there is more than one account to choose from. */
export function AccountPicker(props: { accounts: AccountRecord[]; account: AccountRecord | undefined; onChange: (accountId: string) => void; className?: string }) {
  if (props.accounts.length <= 1) return null;
  return (
    <label className={props.className}>
      Account <AccountSelect accounts={props.accounts} value={props.account?.id ?? ''} onChange={props.onChange} />
    </label>
  );
}
