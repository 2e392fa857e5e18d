import type { LiveBus } from '../core/live-bus';

export interface FailureNotice {
  title: string;
  body: string;
  /** The UI path of the delivery. */
  path: string;
}

/**
 * Native notifications for failed deliveries (off by default; the menu turns them on): one per
 * delivery when it ends failed, after its last attempt, read from the emulator's event stream.
 * Returns the function that stops listening.
 */
export function notifyFailedDeliveries(events: Pick<LiveBus, 'on'>, options: { enabled: () => boolean; notify: (notice: FailureNotice) => void }): () => void {
  const told = new Set<string>();
  return events.on('delivery.updated', (delivery) => {
    if (delivery.status !== 'failed' || told.has(delivery.id) || !options.enabled()) return;
    told.add(delivery.id);
    const why = delivery.last_status_code !== null ? `HTTP ${delivery.last_status_code}` : (delivery.last_error ?? 'no answer');
    options.notify({
      title: `Delivery failed: ${delivery.event}`,
      body: `${delivery.target.url} after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'} (${why})`,
      path: `/deliveries/${encodeURIComponent(delivery.id)}`,
    });
  });
}
