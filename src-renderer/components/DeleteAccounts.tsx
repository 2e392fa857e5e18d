import { useEffect, useState } from 'react';
import type { AccountDeleted, AccountRecord } from '../../src-shared/schemas/emulator';
import { control, describeError } from '../api/clients';
import { ConfirmDialog } from '../features/messages/ConfirmDialog';
import { useOverview } from '../stores/overview-store';

type RemovedKind = keyof AccountDeleted['removed'];

/** Each kind a deletion counts, as one and as many. */
const KIND_WORDS: Record<RemovedKind, [string, string]> = {
  messages: ['message', 'messages'],
  deliveries: ['delivery', 'deliveries'],
  webhooks: ['webhook', 'webhooks'],
  domains: ['domain', 'domains'],
  mailers: ['mailer', 'mailers'],
  inbound_domains: ['inbound domain', 'inbound domains'],
  inbound_usernames: ['inbound username', 'inbound usernames'],
  templates: ['template', 'templates'],
  suppressions: ['suppression', 'suppressions'],
  scheduled_events: ['scheduled event', 'scheduled events'],
  catchers: ['catcher', 'catchers'],
};

/** What the deletions removed, in words: "2 accounts removed: 6 messages, 4 deliveries, 2 webhooks". */
export function describeRemoved(deleted: readonly AccountDeleted[]): string {
  const totals = new Map<RemovedKind, number>();
  for (const d of deleted) for (const kind of Object.keys(KIND_WORDS) as RemovedKind[]) totals.set(kind, (totals.get(kind) ?? 0) + d.removed[kind]);
  const parts = [...totals].filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${KIND_WORDS[kind][n === 1 ? 0 : 1]}`);
  const what = deleted.length === 1 ? `Account “${deleted[0]!.name}” removed` : `${deleted.length} accounts removed`;
  return parts.length > 0 ? `${what}: ${parts.join(', ')}` : `${what} (it held no data)`;
}

/** How much each account holds now, as the confirmation says it ("12 messages, 30 deliveries"). */
function useHoldings(accounts: readonly AccountRecord[]): string | null {
  const [text, setText] = useState<string | null>(null);
  const ids = accounts.map((a) => a.id).join(',');
  useEffect(() => {
    let live = true;
    const list = ids.split(',');
    Promise.all(
      list.map(async (id) => {
        const [messages, deliveries] = await Promise.all([control.countMessages({ account_id: id }), control.countDeliveries({ account_id: id })]);
        return { messages: messages.data.count, deliveries: deliveries.data.count };
      }),
    ).then(
      (counts) => {
        const messages = counts.reduce((n, c) => n + c.messages, 0);
        const deliveries = counts.reduce((n, c) => n + c.deliveries, 0);
        if (live) setText(`${messages} message${messages === 1 ? '' : 's'} and ${deliveries} webhook deliver${deliveries === 1 ? 'y' : 'ies'}`);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [ids]);
  return text;
}

/**
 * Asks before deleting accounts with everything they own (naming them and what goes), deletes them
 * one by one, and tells `onDone` what went (or why it stopped).
 */
export function DeleteAccountsDialog(p: {
  accounts: readonly AccountRecord[];
  title: string;
  onDone: (outcome: { deleted: AccountDeleted[]; error: string | null }) => void;
  onCancel: () => void;
}) {
  const deleteAccounts = useOverview((s) => s.deleteAccounts);
  const holdings = useHoldings(p.accounts);
  const [busy, setBusy] = useState(false);
  const one = p.accounts.length === 1;
  const confirm = async () => {
    setBusy(true);
    const deleted: AccountDeleted[] = [];
    let error: string | null = null;
    try {
      await deleteAccounts(
        p.accounts.map((a) => a.id),
        (d) => deleted.push(d),
      );
    } catch (err) {
      error = describeError(err);
    }
    setBusy(false);
    p.onDone({ deleted, error });
  };
  return (
    <ConfirmDialog title={p.title} confirmLabel={busy ? 'Deleting…' : 'Delete'} busy={busy} onCancel={p.onCancel} onConfirm={() => void confirm()}>
      <ul className="delete-accounts-names" data-testid="delete-accounts-names">
        {p.accounts.map((a) => (
          <li key={a.id}>{a.name}</li>
        ))}
      </ul>
      <p>
        {holdings ? (
          <>
            {one ? 'It holds' : 'They hold'} {holdings}.{' '}
          </>
        ) : null}
        Everything {one ? 'it owns' : 'they own'} is deleted for good: messages and their events, webhooks and deliveries (nothing more is sent), domains,
        mailers, inbound routes, templates, suppressions and catchers. {one ? 'Its API key stops' : 'Their API keys stop'} working.
      </p>
    </ConfirmDialog>
  );
}
