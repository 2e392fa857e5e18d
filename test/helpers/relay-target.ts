import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface RelayedMail {
  from: string;
  to: string[];
  raw: Buffer;
  /** The user that logged in, and how (PLAIN, LOGIN, XOAUTH2). */
  user: string | undefined;
  method: string | undefined;
}

export interface RelayTarget {
  port: number;
  received: RelayedMail[];
  /** Recipients refused at RCPT TO with `550 5.1.1`. */
  refuse: Set<string>;
  /** Recipients refused for now at RCPT TO with `451 4.7.1` (greylisting), this many more times each. */
  tempfail: Map<string, number>;
  /** Logins made, accepted or not; `secure`: over TLS (after STARTTLS). */
  logins: Array<{ method: string; user: string; ok: boolean; secure: boolean }>;
  /** Connections opened to it (whether or not anything followed). */
  connections: number;
  waitFor(count: number, timeoutMs?: number): Promise<RelayedMail[]>;
  close(): Promise<void>;
}

/**
 * A second SMTP server, started by a test as the relay target of an SMTP mailer (smtp-server, plain,
 * AUTH PLAIN/LOGIN with `user`/`pass`, XOAUTH2 with `accessToken`). With `starttls`, it offers
 * STARTTLS (a self-signed certificate for 127.0.0.1); without, it offers no TLS at all.
 */
export async function startRelayTarget(
  options: { user?: string; pass?: string; accessToken?: (token: string) => boolean; port?: number; starttls?: boolean } = {},
): Promise<RelayTarget> {
  const state: RelayTarget = {
    port: 0,
    received: [],
    refuse: new Set(),
    tempfail: new Map(),
    logins: [],
    connections: 0,
    waitFor: async () => [],
    close: async () => {},
  };
  const waiters = new Set<() => void>();
  const tls = options.starttls
    ? await generate([{ name: 'commonName', value: 'localhost' }], {
        keyType: 'ec',
        curve: 'P-256',
        extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
      })
    : undefined;
  const server = new SMTPServer({
    secure: false,
    ...(tls ? { key: tls.private, cert: tls.cert } : { disabledCommands: ['STARTTLS'] }),
    authOptional: options.user === undefined,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN', 'XOAUTH2'],
    logger: false,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onAuth(auth, session, callback) {
      const ok =
        auth.method === 'XOAUTH2'
          ? options.accessToken?.(auth.accessToken ?? '') === true && auth.username === options.user
          : auth.username === options.user && auth.password === options.pass;
      state.logins.push({ method: auth.method, user: auth.username ?? '', ok, secure: session.secure });
      if (!ok) return callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (state.refuse.has(address.address.toLowerCase())) {
        return callback(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
      }
      const left = state.tempfail.get(address.address.toLowerCase()) ?? 0;
      if (left > 0) {
        state.tempfail.set(address.address.toLowerCase(), left - 1);
        return callback(Object.assign(new Error(`4.7.1 <${address.address}>: Recipient address rejected: Greylisted, try again later`), { responseCode: 451 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        state.received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          user: session.user as string | undefined,
          method: session.user ? (state.logins.at(-1)?.method ?? undefined) : undefined,
        });
        for (const w of [...waiters]) w();
        callback(null, '2.0.0 Ok: queued as RELAY1');
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  state.port = (server.server.address() as AddressInfo).port;
  state.waitFor = (count, timeoutMs = 10_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (state.received.length < count) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(state.received.slice(0, count));
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`relay target got ${state.received.length} messages, expected ${count}, within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
