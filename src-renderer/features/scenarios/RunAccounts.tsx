import { useState } from 'react';
import type { ScenarioRun } from '../../../src-shared/scenario/report';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { DeleteAccountsDialog, describeRemoved } from '../../components/DeleteAccounts';
import { useOverview } from '../../stores/overview-store';

const finished = (r: ScenarioRun) => r.status !== 'starting' && r.status !== 'running';

/** The accounts these finished runs made that still exist (a run on an existing account, the default one included, used it: it stays). */
export function runAccounts(runs: readonly ScenarioRun[], accounts: readonly AccountRecord[]): AccountRecord[] {
  const ids = new Set(runs.filter((r) => finished(r) && r.newAccount).map((r) => r.accountId));
  return accounts.filter((a) => !a.is_default && ids.has(a.id));
}

/** Whether the run's account was deleted (its record and report stay); false until the accounts are read. */
export function useAccountRemoved(run: ScenarioRun): boolean {
  return useOverview((s) => run.accountId !== '' && s.accounts.length > 0 && !s.accounts.some((a) => a.id === run.accountId));
}

/**
 * Removes the accounts of finished runs, with everything they hold, after a confirmation naming them
 * and what they hold; says what went. Shown only while there is one to remove.
 */
export function RemoveRunAccounts({ runs, label, testId }: { runs: readonly ScenarioRun[]; label: string; testId: string }) {
  const accounts = useOverview((s) => s.accounts);
  const removable = runAccounts(runs, accounts);
  const [asking, setAsking] = useState<AccountRecord[] | null>(null);
  const [outcome, setOutcome] = useState<{ tone: 'notice' | 'error'; text: string } | null>(null);
  return (
    <>
      {removable.length > 0 && (
        <button
          type="button"
          className="button small danger"
          data-testid={testId}
          onClick={() => {
            setOutcome(null);
            setAsking(removable);
          }}
        >
          {label}
          {removable.length > 1 ? ` (${removable.length})` : ''}…
        </button>
      )}
      {outcome && (
        <span className={`${outcome.tone} small`} role={outcome.tone === 'error' ? 'alert' : 'status'} data-testid={`${testId}-outcome`}>
          {outcome.text}
        </span>
      )}
      {asking && (
        <DeleteAccountsDialog
          accounts={asking}
          title={asking.length === 1 ? 'Delete this run’s account and all its data?' : `Delete the accounts of ${asking.length} runs and all their data?`}
          onCancel={() => setAsking(null)}
          onDone={({ deleted, error }) => {
            setAsking(null);
            const done = deleted.length > 0 ? describeRemoved(deleted) : '';
            setOutcome(error ? { tone: 'error', text: done ? `${done}; then: ${error}` : error } : { tone: 'notice', text: done });
          }}
        />
      )}
    </>
  );
}
