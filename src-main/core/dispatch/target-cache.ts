import type { DeliveryRow } from '../store/deliveries.repo';
import { type DeliveryTarget, type DeliveryTargets, targetKey } from './delivery-targets';

/** Where each delivery goes, by `kind:id`: read once from the registered targets, dropped when the target changes. */
export class TargetCache {
  private readonly byKey = new Map<string, DeliveryTarget | null>();

  constructor(private readonly targets: Pick<DeliveryTargets, 'resolve'>) {}

  /** Where a delivery goes now; undefined once its target is gone. */
  resolve(row: DeliveryRow): DeliveryTarget | undefined {
    const key = targetKey(row);
    let target = this.byKey.get(key);
    if (target === undefined) {
      target = this.targets.resolve(row.target_kind, row.target_id, row.account_id) ?? null;
      this.byKey.set(key, target);
    }
    return target ?? undefined;
  }

  /** A target's URL, method or headers changed, or it is gone: read it afresh next time. */
  forget(kind: string, id: string): void {
    this.byKey.delete(`${kind}:${id}`);
  }
}
