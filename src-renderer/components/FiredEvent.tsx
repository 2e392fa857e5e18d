import { type ReactNode, useEffect, useState } from 'react';
import type { z } from 'zod';
import { eventFieldsOf } from '../../src-shared/payload-format';
import type { DeliverySummary, FireEventResult } from '../../src-shared/schemas/dispatch';
import { control } from '../api/clients';
import { live } from '../api/live';
import { useRefreshWhileInFlight } from './DeliveryState';
import { Link } from './Link';
import { formatTimeOfDay } from './Time';

type Result = z.output<typeof FireEventResult>;
type Followed = Pick<DeliverySummary, 'id' | 'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_error'>;

/**
 * The delivery a fired event went out as, as it is now: read once, then kept by the live stream's
 * `delivery.updated` (read again on each reconnect, and every second while an attempt is in flight
 * or due, as the lists do: an announcement may be missed).
 */
function useFollowedDelivery(id: string | null): Followed | null {
  const [delivery, setDelivery] = useState<Followed | null>(null);
  const [reload, setReload] = useState<() => void>(() => () => {});
  useEffect(() => {
    setDelivery(null);
    if (!id) return;
    let gone = false;
    const load = () =>
      void control.getDelivery(id).then(
        (res) => !gone && setDelivery(res.data),
        () => {},
      );
    setReload(() => load);
    load();
    const offUpdated = live.on('delivery.updated', (d) => {
      if (!gone && d.id === id) setDelivery(d);
    });
    const offReconnect = live.onReconnect(load);
    return () => {
      gone = true;
      offUpdated();
      offReconnect();
    };
  }, [id]);
  useRefreshWhileInFlight(delivery ? [delivery] : [], reload);
  return delivery;
}

/** What the receiver said to the last attempt: its status code, or why there was no answer. */
function answerOf(d: Followed): string {
  if (d.last_status_code !== null) return `the receiver answered ${d.last_status_code}`;
  return d.last_error ? `the attempt failed: ${d.last_error}` : 'the attempt failed';
}

/** Where the delivery is, in words: in flight, the receiver's answer, the next retry on the emulator clock. */
export function deliveryProgress(d: Followed): string {
  switch (d.status) {
    case 'sending':
      return `attempt ${d.attempts + 1} in flight`;
    case 'succeeded':
      return answerOf(d);
    case 'failed':
      return `${answerOf(d)}; no attempts left`;
    case 'cancelled':
      return 'cancelled: its webhook was deleted';
    default: {
      const when = d.next_attempt_at ? ` at ${formatTimeOfDay(d.next_attempt_at)} (emulator clock)` : ' now';
      return d.attempts === 0 ? `first attempt${when}` : `${answerOf(d)}, retry ${d.attempts + 1}${when}`;
    }
  }
}

/**
 * What a fired event did, step by step: the event recorded, its delivery queued (or why not), then
 * that delivery followed live to the receiver's answer ("receiver answered 500, retry 2 at 14:05:09
 * (emulator clock)").
 */
export function FiredEvent({ result, small = false, children }: { result: Result; small?: boolean; children?: ReactNode }) {
  const event = String(eventFieldsOf(result.payload).event);
  const delivery = useFollowedDelivery(result.delivery_id);
  const failing = delivery !== null && delivery.status !== 'succeeded' && delivery.attempts > 0;
  return (
    <span className={`fired${result.sent && !failing ? ' notice' : ' warn'}${small ? ' small' : ''}`} data-testid="fire-result" role="status">
      {event} recorded
      {result.sent && result.delivery_id ? (
        <>
          {' · webhook delivery '}
          <Link to={`/deliveries/${result.delivery_id}`}>{result.delivery_id}</Link> queued
          {delivery && <span data-testid="fire-delivery">{` · ${deliveryProgress(delivery)}`}</span>}
        </>
      ) : (
        ` · no webhook delivery queued: ${result.reason}`
      )}
      {children}
    </span>
  );
}
