import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import selfsigned from 'selfsigned';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** How the receiver answers one request: a status, or `hang` (never answer); `delayMs` answers that much later. */
export type Answer = number | 'hang' | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

/** A real local webhook receiver that records every request and answers `status` (200 by default). */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** TCP connections accepted (a reachability check connects without sending a request). */
  connections: number;
  status: number;
  /** Decides the answer per request (overrides `status`); gets the request's 0-based index. */
  answer?: (req: ReceivedRequest, index: number) => Answer;
  /** Resolves once `count` requests have arrived in all; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startReceiver(options: { https?: boolean } = {}): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const state: Receiver = {
    url: '',
    requests: [],
    connections: 0,
    status: 200,
    close: async () => {},
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (state.requests.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(state.requests.slice(0, count));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver got ${state.requests.length} requests, expected ${count}, within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
  const handler = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      const index = state.requests.length;
      state.requests.push(received);
      for (const w of [...waiters]) w();
      const answer = state.answer ? state.answer(received, index) : state.status;
      if (answer === 'hang') return;
      const { status, body, headers, delayMs } = typeof answer === 'number' ? { status: answer, body: undefined, headers: undefined, delayMs: 0 } : answer;
      const respond = () => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body ?? '{"ok":true}');
      if (delayMs) setTimeout(respond, delayMs);
      else respond();
    });
  };
  let server: Server;
  if (options.https) {
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256' });
    server = createHttpsServer({ key: pems.private, cert: pems.cert }, handler);
    server.on('secureConnection', () => state.connections++);
  } else {
    server = createHttpServer(handler);
    server.on('connection', () => state.connections++);
  }
  const port = await listen(server);
  state.url = `${options.https ? 'https' : 'http'}://127.0.0.1:${port}/hooks`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return state;
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server that accepts connections and never speaks (a TLS handshake against it times out or fails). */
export async function startSilentTcpServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = createNetServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
