import { listQuery, type MessageFilters } from '../../stores/messages-store';

/** The export's URL: the list's own filters (the account in the header among them), as `mailyard export` asks for it. */
export function exportHref(f: MessageFilters): string {
  const text = new URLSearchParams(listQuery(f)).toString();
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
