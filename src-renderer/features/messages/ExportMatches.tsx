import type { MessageFilters } from '../../stores/messages-store';

/** The export's URL: the list's own filters (the account in the header among them), as `mailyard export` asks for it. */
export function exportHref(f: MessageFilters): string {
  const params = new URLSearchParams();
  if (f.q.trim()) params.set('q', f.q.trim());
  if (f.status) params.set('status', f.status);
  if (f.campaign_id.trim()) params.set('campaign_id', f.campaign_id.trim());
  if (f.account_id) params.set('account_id', f.account_id);
  const text = params.toString();
  return `/emulator/messages/export${text ? `?${text}` : ''}`;
}

/**
 * Downloads what the list finds as an mbox (oldest first, a copy per recipient), the file `mailyard
 * export --query` writes; `mailyard import` or the drop zone reads it back.
 */
export function ExportMatches({ filters, count, filtered, ready }: { filters: MessageFilters; count: number; filtered: boolean; ready: boolean }) {
  const label = filtered ? `Export ${count.toLocaleString()} match${count === 1 ? '' : 'es'}` : 'Export all';
  const title = 'Download as an mbox file (mailyard import reads it back)';
  // While a search is on its way the count shown answers the filters before it: nothing to export by these yet.
  if (!ready)
    return (
      <button type="button" className="button small" disabled title={title}>
        {label}
      </button>
    );
  return (
    <a className="button small" href={exportHref(filters)} download title={title} data-testid="export-matches">
      {label}
    </a>
  );
}
