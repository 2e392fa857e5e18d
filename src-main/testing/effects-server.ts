import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A test's count of the events its receiver has acted on, served as a receiver check's effects URL: a
 * server on 127.0.0.1 (a free port) that answers each GET with `{"processed": N}`, N what `count`
 * gives then (a 500 with its message when it throws). What `yard.checkReceiver(url, { effects })` runs
 * while a check reads it; `close` ends it.
 */
export async function serveEffects(count: () => number | Promise<number>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(count)
      .then(
        (processed) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ processed })),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`effects() threw: ${(err as Error)?.message ?? String(err)}`),
      );
    req.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/effects`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
