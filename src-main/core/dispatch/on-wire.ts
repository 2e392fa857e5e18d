/** One attempt on the wire: its delivery and number, and whether a request received has been said to be it. */
interface Sending {
  deliveryId: string;
  attempt: number;
  told: boolean;
}

/**
 * Attempts on the wire by the webhook-id their requests carry (a duplicate shares its original's):
 * which delivery sent a request a receiver inside Mailyard gets, and its attempt's number. Each
 * attempt is one request, so each is said once.
 */
export class AttemptsOnWire {
  private readonly byWebhookId = new Map<string, Sending[]>();

  /** An attempt goes on the wire; the function answered takes it off. */
  add(webhookId: string, deliveryId: string, attempt: number): () => void {
    const sending: Sending = { deliveryId, attempt, told: false };
    const wire = this.byWebhookId.get(webhookId);
    if (wire) wire.push(sending);
    else this.byWebhookId.set(webhookId, [sending]);
    return () => {
      const left = this.byWebhookId.get(webhookId)?.filter((s) => s !== sending) ?? [];
      if (left.length > 0) this.byWebhookId.set(webhookId, left);
      else this.byWebhookId.delete(webhookId);
    };
  }

  /** The first attempt on the wire with this webhook-id not yet said of a request, now said. */
  tell(webhookId: string): { deliveryId: string; attempt: number } | undefined {
    const sending = this.byWebhookId.get(webhookId)?.find((s) => !s.told);
    if (!sending) return undefined;
    sending.told = true;
    return { deliveryId: sending.deliveryId, attempt: sending.attempt };
  }
}
