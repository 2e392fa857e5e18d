import { createServer, type Socket } from 'node:net';

/** How a stub IMAP server behaves on each connection. */
export type ImapStubMode =
  /** Refuses at once, as a loaded server does: `* BYE Too many connections`, then closes. */
  | 'bye'
  /** Greets, then reads and never answers. */
  | 'greet-then-hang'
  /** Greets, then answers every command with a tagged line that is not IMAP. */
  | 'garbage';

export interface ImapStub {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A tiny IMAP-ish TCP server on 127.0.0.1 that misbehaves as `mode` says. */
export async function startImapStub(mode: ImapStubMode): Promise<ImapStub> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (mode === 'bye') return void socket.end('* BYE Too many connections\r\n');
    socket.write('* OK IMAP4rev1 ready\r\n');
    if (mode === 'garbage') {
      socket.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('latin1').split('\r\n').filter(Boolean)) {
          socket.write(`${line.split(' ')[0]} ???\x01garbage [[[ not imap\r\n`);
        }
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
