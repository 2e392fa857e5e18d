import { CATCHER_LIMITS } from '../../../../src-shared/schemas/catchers';

/** Which bound refused a request: its catcher's own, or that of all catchers together. */
export type HoldRefusal = 'catcher' | 'all';

export interface HoldSlot {
  /** Gives the slot back; a second call does nothing. */
  release(): void;
}

/**
 * The requests catchers hold at once (a hang, a delayed answer), per catcher and in all. Each holds a
 * socket, and anyone who knows a catcher's URL can send to it, so a flood cannot take every file
 * descriptor: past a bound the request is refused at once instead (docs/limits.md).
 */
export class CatcherHolds {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(private readonly bounds: { perCatcher: number; all: number } = { perCatcher: CATCHER_LIMITS.heldPerCatcher, all: CATCHER_LIMITS.heldInAll }) {}

  /** A slot for one more held request of catcher `id`, or the bound that refuses it. */
  take(id: string): HoldSlot | HoldRefusal {
    const mine = this.held.get(id) ?? 0;
    if (this.total >= this.bounds.all) return 'all';
    if (mine >= this.bounds.perCatcher) return 'catcher';
    this.held.set(id, mine + 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.held.get(id) ?? 1) - 1;
        if (left === 0) this.held.delete(id);
        else this.held.set(id, left);
      },
    };
  }

  /** Requests held now: of catcher `id`, or of all catchers. */
  count(id?: string): number {
    return id === undefined ? this.total : (this.held.get(id) ?? 0);
  }
}
