import { copyKey } from './plan';

/**
 * The run's copies by what a rerun repeats (copyKey: the address and the copy's number among the run's
 * copies to it), found again from a delivery's send (ref_id) and recipient: the seeded draws of the
 * webhook faults are keyed by them, never by ids, which are new in every run.
 */
export class CopyKeys {
  private readonly bySend = new Map<string, string>();
  private readonly firstOfSend = new Map<string, string>();

  /** Notes the `nth` copy of the run to `email`, of the send `refId`; answers its key. */
  note(refId: string, email: string, nth: number): string {
    const key = copyKey(email, nth);
    this.bySend.set(`${refId}\n${email.toLowerCase()}`, key);
    if (!this.firstOfSend.has(refId)) this.firstOfSend.set(refId, key);
    return key;
  }

  /** The key of the copy a delivery is about; with no recipient (a body that names none), the send's first copy. */
  of(refId: string | null, recipient: string | undefined): string | undefined {
    if (refId === null) return undefined;
    return recipient === undefined ? this.firstOfSend.get(refId) : this.bySend.get(`${refId}\n${recipient.toLowerCase()}`);
  }
}
