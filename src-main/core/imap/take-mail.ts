import type { ImapFlow } from 'imapflow';
import type { TakenMessage } from './message-store';

/** Of a message over the size limit only the header block is fetched, at most this much of it. */
export const HEADER_FETCH_BYTES = 1024 * 1024;

export interface TakeMail {
  uidValidity: number;
  /** The first UID not taken yet. */
  from: number;
  /** Largest message fetched whole, in bytes (the SMTP sink's limit). */
  maxMessageBytes: number;
  /** Already stored (a message is never taken twice). */
  has(uid: number): boolean;
  store(message: TakenMessage): Promise<void>;
  /** Every message before `next` is taken: the position to start from next time. */
  advance(next: number): void;
  /** The watch was closed or lost this connection: stop. */
  stopped(): boolean;
}

type Fetched = Omit<TakenMessage, 'uidValidity'>;

async function whole(client: ImapFlow, uid: number): Promise<Fetched | undefined> {
  const fetched = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
  // fetchOne answers false when the message is gone.
  if (!fetched) return undefined;
  return fetched.source ? { uid, raw: fetched.source } : undefined;
}

/** `BODY.PEEK[HEADER]<0.HEADER_FETCH_BYTES>`: the header block (at most that much of it), never the body. */
async function headerOnly(client: ImapFlow, uid: number, size: number, limit: number): Promise<Fetched | undefined> {
  const fetched = await client.fetchOne(String(uid), { uid: true, bodyParts: [{ key: 'HEADER', start: 0, maxLength: HEADER_FETCH_BYTES }] }, { uid: true });
  if (!fetched) return undefined;
  // imapflow files a partial section's answer (`BODY[HEADER]<0>`) among the body parts.
  const header = fetched.headers ?? [...(fetched.bodyParts?.values() ?? [])][0];
  return header ? { uid, raw: Buffer.from(header), oversize: { size, limit } } : undefined;
}

/**
 * Takes the messages from `from` on, one at a time in UID order. Their sizes (RFC822.SIZE) are asked
 * first, so a message over the limit is never downloaded: only its header block is.
 * The position advances past each message once it is stored, whatever it held.
 */
export async function takeMail(client: ImapFlow, take: TakeMail): Promise<void> {
  const sizes: Array<{ uid: number; size: number }> = [];
  for await (const m of client.fetch(`${take.from}:*`, { uid: true, size: true }, { uid: true })) {
    // `N:*` also names the last message when every UID is below N.
    if (m.uid >= take.from) sizes.push({ uid: m.uid, size: m.size ?? 0 });
  }
  sizes.sort((a, b) => a.uid - b.uid);
  for (const { uid, size } of sizes) {
    if (take.stopped()) return;
    if (!take.has(uid)) {
      const message = size > take.maxMessageBytes ? await headerOnly(client, uid, size, take.maxMessageBytes) : await whole(client, uid);
      if (take.stopped()) return;
      // Undefined: expunged meanwhile; nothing to take.
      if (message) await take.store({ uidValidity: take.uidValidity, ...message });
      // Closed while storing: the store may have left it; it is taken on the next connection.
      if (take.stopped()) return;
    }
    take.advance(uid + 1);
  }
}
