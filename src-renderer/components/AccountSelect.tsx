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
