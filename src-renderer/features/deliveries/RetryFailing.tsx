import { useState } from 'react';
import type { EndpointStats } from '../../../src-shared/schemas/dispatch';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { ConfirmDialog } from '../messages/ConfirmDialog';

/**
 * "Retry all failing" for one endpoint: counts its failed deliveries and those waiting for a retry
 * first, asks "Retry N failing deliveries to <url>?", then sends each again now (manual attempts in
 * the endpoint's slots; the rows update live as they end).
 */
export function RetryFailing({ endpoint }: { endpoint: EndpointStats }) {
  const { kind, id, url } = endpoint.target;
  const [asking, setAsking] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useRun();
  const ask = async () => {
    setNotice(null);
    const res = await run(() => control.countFailingDeliveries(kind, id));
    if (!res) return;
    if (res.data.count === 0) setNotice('Nothing failing now');
    else setAsking(res.data.count);
  };
  const retry = async () => {
    setAsking(null);
    const res = await run(() => control.retryFailingDeliveries(kind, id));
    if (res) setNotice(`Retrying ${res.data.delivery_ids.length}${res.data.left > 0 ? ` (${res.data.left} more after these)` : ''}`);
  };
  return (
    <>
      <button type="button" className="button small" disabled={busy} onClick={() => void ask()}>
        Retry all failing…
      </button>
      {notice && (
        <span className="muted small" data-testid="retry-failing-notice">
          {' '}
          {notice}
        </span>
      )}
      {error && (
        <span className="error small" role="alert">
          {' '}
          {error}
        </span>
      )}
      {asking !== null && (
        <ConfirmDialog
          title={`Retry ${asking} failing ${asking === 1 ? 'delivery' : 'deliveries'} to ${url}?`}
          confirmLabel="Retry now"
          busy={busy}
          onCancel={() => setAsking(null)}
          onConfirm={() => void retry()}
        >
          <p>
            Each failed delivery of this endpoint, and each one waiting for its next retry, is sent again now, signed afresh. A success ends it; a failure
            leaves its retry schedule as it was.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
