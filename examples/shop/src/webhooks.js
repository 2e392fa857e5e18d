// @ts-check
/**
 * The shop's webhook receiver for the service's email events. It refuses a request without the
 * shared secret (401), answers 500 when it could not record an event (the service then retries), and
 * handles each event once: the service delivers at least once, so the same event may come again, and
 * events of one send may arrive in any order. Deduplicate by webhook-id: an event keeps one webhook-id
 * through all its retries, and two different events never share one. (A ref_id is no key: it covers
 * every recipient of a send, and one recipient can get soft, soft, then hard bounces under it.)
 */

/**
 * @typedef {{ event: string, ref_id: string, timestamp: string, recipient?: { email: string }, bounce_type?: string }} EmailEvent
 * @typedef {{ handled: EmailEvent[], duplicates: number, refused: number, failed: number }} ReceiverStats
 */

/**
 * @param {{ secret: string, onEvent: (event: EmailEvent) => void }} options
 * @returns {{ handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void, stats: ReceiverStats }}
 */
export function webhookReceiver({ secret, onEvent }) {
  const seen = new Set();
  /** @type {ReceiverStats} */
  const stats = { handled: [], duplicates: 0, refused: 0, failed: 0 };
  return {
    stats,
    handle(req, res) {
      /** @type {Buffer[]} */
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        if (req.headers['x-webhook-secret'] !== secret) {
          stats.refused++;
          res.writeHead(401).end();
          return;
        }
        /** @type {EmailEvent} */
        let event;
        try {
          event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400).end();
          return;
        }
        const key = String(req.headers['webhook-id']);
        if (seen.has(key)) {
          stats.duplicates++;
          res.writeHead(200).end('duplicate');
          return;
        }
        try {
          onEvent(event);
        } catch {
          // Not recorded: a 5xx makes the service try again later.
          stats.failed++;
          res.writeHead(500).end();
          return;
        }
        seen.add(key);
        stats.handled.push(event);
        res.writeHead(200).end('ok');
      });
    },
  };
}
