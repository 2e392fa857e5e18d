import { useEffect, useState } from 'react';
import type { StoreSpace } from '../../../src-shared/schemas/emulator';
import { live } from '../../api/live';
import { useOverview } from '../../stores/overview-store';

/**
 * Says, on every screen, that the disk of the data directory is full: new mail and sends are refused
 * and the emulator's work waits until there is room. Follows the live stream, starting from the health.
 */
export function StoreFullBanner() {
  const fromHealth = useOverview((s) => s.health?.store ?? null);
  const [space, setSpace] = useState<StoreSpace | null>(null);
  useEffect(() => live.on('store.changed', setSpace), []);
  const current = space ?? fromHealth;
  if (!current?.full) return null;
  return (
    <div className="store-full-banner" role="alert">
      <strong>The disk of the data directory is full.</strong> New mail and sends are refused (HTTP 507, SMTP 451) and scheduled events and webhook deliveries
      wait. Free some space: Mailyard goes on by itself, and nothing it accepted is lost.
    </div>
  );
}
