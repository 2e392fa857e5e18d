import { useEffect } from 'react';
import type { AccountRecord } from '../../src-shared/schemas/emulator';
import { navigate, usePath, useSearchParam } from '../router';
import { useOverview } from '../stores/overview-store';

/**
 * A choice of account by name; `anyLabel` adds a first option with an empty value (no account chosen);
 * `missing` names a value that is no account (one deleted), shown chosen rather than another in its place.
 */
export function AccountSelect(props: {
  accounts: AccountRecord[];
  value: string;
  onChange: (accountId: string) => void;
  anyLabel?: string;
  ariaLabel?: string;
  missing?: string;
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
      title={chosen?.name ?? props.missing ?? props.anyLabel}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    >
      {props.missing !== undefined && !chosen && (
        <option value={props.value} disabled>
          {props.missing}
        </option>
      )}
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
 * The account a screen works as: the one chosen, else (none chosen) the default one, else the first.
 * The choice is the URL's `?account=<id>`, so a reload or a shared link keeps it. A chosen account
 * that no longer exists gives none: no screen acts as another account than the one chosen (see
 * useChosenGone and ChosenAccountGone).
 */
export function useChosenAccount(accounts: AccountRecord[]): [AccountRecord | undefined, (accountId: string) => void] {
  const accountId = useSearchParam('account') ?? '';
  const choose = (id: string) => navigate(withParam('account', id), true);
  if (accountId) return [accounts.find((a) => a.id === accountId), choose];
  return [accounts.find((a) => a.is_default) ?? accounts[0], choose];
}

/**
 * The account the URL names when it no longer exists (deleted, or a link to one that never was), once
 * the accounts are read: its id, and its name when this page knew it. Null when the URL names none or a living one.
 */
export function useChosenGone(): { id: string; name: string | null; deletedHere: boolean } | null {
  const chosenId = useSearchParam('account') ?? '';
  const { accounts, loading, error, deletedElsewhere, deletedHere } = useOverview();
  if (!chosenId || loading || error !== null || accounts.some((a) => a.id === chosenId)) return null;
  return { id: chosenId, name: deletedElsewhere[chosenId] ?? null, deletedHere: deletedHere.has(chosenId) };
}

/** The screens that list every account's items when no account is chosen (the others work as the default one). */
const LISTS_ALL = ['/messages', '/deliveries'];

const listsAllAt = (path: string) => LISTS_ALL.some((p) => path === p || path.startsWith(`${p}/`));

/**
 * The one account switcher, in the header: every screen works as (or lists) the account it names. The
 * choice is the URL's `?account=<id>`, which every in-app link and a reload keep. Shown only when
 * there is more than one account.
 */
export function AccountSwitcher() {
  const accounts = useOverview((s) => s.accounts);
  const listsAll = listsAllAt(usePath());
  const [account, choose] = useChosenAccount(accounts);
  const chosenId = useSearchParam('account') ?? '';
  const gone = useChosenGone();
  // An account this page deleted (the user asked for it here): back to all accounts or the default one.
  // One deleted elsewhere stays chosen until the user chooses (ChosenAccountGone asks).
  const leave = gone?.deletedHere === true;
  useEffect(() => {
    if (leave) navigate(withParam('account', ''), true);
  }, [leave]);
  if (accounts.length <= 1) return null;
  return (
    <AccountSelect
      accounts={accounts}
      value={gone ? gone.id : listsAll ? chosenId : (account?.id ?? '')}
      onChange={choose}
      ariaLabel="Account"
      {...(gone && !gone.deletedHere ? { missing: gone.name ? `${gone.name} (deleted)` : 'no such account' } : {})}
      {...(listsAll ? { anyLabel: 'All accounts' } : {})}
    />
  );
}

/**
 * Says, under the header, that the account the screen works as was deleted elsewhere (or that the link
 * names none), and asks which to go on with: until then no screen acts as any account (Send, Fire,
 * webhooks... are disabled), so nothing goes out as another account than the one the user chose.
 */
export function ChosenAccountGone() {
  const gone = useChosenGone();
  const accounts = useOverview((s) => s.accounts);
  const listsAll = listsAllAt(usePath());
  if (!gone || gone.deletedHere) return null;
  const choose = (id: string) => navigate(withParam('account', id), true);
  const fallback = accounts.find((a) => a.is_default) ?? accounts[0];
  return (
    <div className="account-gone" role="alert" data-testid="account-gone">
      <p>
        {gone.name ? (
          <>
            <strong>The account “{gone.name}” was deleted</strong> (in another window, or through the API) while this page worked as it.
          </>
        ) : (
          <>
            <strong>
              There is no account <code>{gone.id}</code>
            </strong>{' '}
            (it was deleted, or the link comes from another emulator).
          </>
        )}{' '}
        Nothing is done as another account until you choose one.
      </p>
      <div className="account-gone-choices">
        {fallback && (
          <button type="button" className="button primary" onClick={() => choose(fallback.id)}>
            Work as {fallback.name}
          </button>
        )}
        {listsAll && (
          <button type="button" className="button" onClick={() => choose('')}>
            Show all accounts
          </button>
        )}
        {accounts.length > 1 && (
          <AccountSelect accounts={accounts} value="" onChange={choose} anyLabel="or choose another account…" ariaLabel="Choose an account" />
        )}
      </div>
    </div>
  );
}
