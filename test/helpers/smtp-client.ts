import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface SmtpReply {
  code: number;
  /** The reply's lines without their code, joined by newlines. */
  text: string;
}

/**
 * A raw SMTP client over one socket, for protocol edges a mail library hides (many recipients, broken
 * messages, exact reply codes). Commands are written as given; replies are read one at a time.
 */
export class RawSmtpClient {
  private buffer = '';
  private replies: SmtpReply[] = [];
  private waiting: Array<(reply: SmtpReply) => void> = [];
  private closedError: Error | null = null;

  private constructor(private socket: Socket) {
    this.attach(socket);
  }

  static async open(port: number, host = '127.0.0.1'): Promise<{ client: RawSmtpClient; greeting: SmtpReply }> {
    const socket = connect(port, host);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const client = new RawSmtpClient(socket);
    return { client, greeting: await client.read() };
  }

  private attach(socket: Socket): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (err) => (this.closedError = err));
    socket.on('close', () => {
      this.closedError ??= new Error('connection closed');
      for (const w of this.waiting.splice(0)) w({ code: 0, text: this.closedError.message });
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let lines: string[] = [];
    for (;;) {
      const end = this.buffer.indexOf('\r\n');
      if (end < 0) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      lines.push(line);
      if (line[3] === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), text: lines.map((l) => l.slice(4)).join('\n') };
      lines = [];
      const waiter = this.waiting.shift();
      if (waiter) waiter(reply);
      else this.replies.push(reply);
    }
    if (lines.length) this.buffer = lines.map((l) => `${l}\r\n`).join('') + this.buffer;
  }

  /** The next reply. */
  read(): Promise<SmtpReply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.closedError) return Promise.resolve({ code: 0, text: this.closedError.message });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Sends one command line and reads its reply. */
  async command(line: string): Promise<SmtpReply> {
    this.write(`${line}\r\n`);
    return this.read();
  }

  /** Sends DATA, the message (dot-stuffed here) and the final dot; answers the reply to the message. */
  async data(message: string | Buffer): Promise<SmtpReply> {
    const go = await this.command('DATA');
    if (go.code !== 354) return go;
    const text = Buffer.isBuffer(message) ? message.toString('binary') : message;
    const stuffed = text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    this.write(Buffer.from(`${stuffed}${stuffed.endsWith('\r\n') ? '' : '\r\n'}.\r\n`, Buffer.isBuffer(message) ? 'binary' : 'utf8'));
    return this.read();
  }

  /** STARTTLS, then the TLS handshake on the same socket (self-signed certificates accepted). */
  async startTls(): Promise<SmtpReply> {
    const reply = await this.command('STARTTLS');
    if (reply.code !== 220) return reply;
    this.socket.removeAllListeners('data');
    const secure = tlsConnect({ socket: this.socket, rejectUnauthorized: false, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    this.socket = secure;
    this.attach(secure);
    return reply;
  }

  get peerCertificate() {
    return 'getPeerCertificate' in this.socket ? (this.socket as import('node:tls').TLSSocket).getPeerCertificate() : null;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** AUTH PLAIN's initial response for a user name and password. */
export function authPlain(user: string, password: string): string {
  return Buffer.from(`\0${user}\0${password}`).toString('base64');
}
