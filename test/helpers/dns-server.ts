import { createSocket, type RemoteInfo } from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** Records served by the test DNS server, by lower-case name. A TXT record is one string (split into 255-byte chunks). */
export interface DnsZone {
  TXT: Map<string, string[]>;
  CNAME: Map<string, string>;
  MX: Map<string, Array<{ priority: number; exchange: string }>>;
}

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for `Resolver.setServers`. */
  server: string;
  zone: DnsZone;
  /** Names asked for, in order, with their type. */
  queries: Array<{ name: string; type: string }>;
  close(): Promise<void>;
}

const TYPES: Record<number, 'TXT' | 'CNAME' | 'MX'> = { 16: 'TXT', 5: 'CNAME', 15: 'MX' };
const TYPE_CODE = { TXT: 16, CNAME: 5, MX: 15 } as const;

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p, 'ascii')])), Buffer.from([0])]);
}

function txtData(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const part = bytes.subarray(i, i + 255);
    chunks.push(Buffer.from([part.length]), part);
  }
  return Buffer.concat(chunks);
}

/** Reads the question of a query: its name, type and where the question section ends. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } {
  let offset = 12;
  const labels: string[] = [];
  while (msg[offset]! !== 0) {
    const len = msg[offset]!;
    labels.push(msg.subarray(offset + 1, offset + 1 + len).toString('ascii'));
    offset += len + 1;
  }
  offset += 1;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(offset), end: offset + 4 };
}

/**
 * A tiny authoritative DNS server over UDP on 127.0.0.1 for tests: answers TXT, CNAME and MX from `zone`,
 * NXDOMAIN for a name it has no record of at all, an empty answer (NODATA) for a known name without
 * records of the asked type. Enough for node's resolver (c-ares) and for mailauth.
 */
export async function startDnsServer(): Promise<TestDnsServer> {
  const zone: DnsZone = { TXT: new Map(), CNAME: new Map(), MX: new Map() };
  const queries: TestDnsServer['queries'] = [];
  const socket = createSocket('udp4');
  socket.on('message', (msg: Buffer, rinfo: RemoteInfo) => {
    if (msg.length < 17) return;
    const q = readQuestion(msg);
    const type = TYPES[q.type];
    queries.push({ name: q.name, type: type ?? String(q.type) });
    const known = zone.TXT.has(q.name) || zone.CNAME.has(q.name) || zone.MX.has(q.name);
    const answers: Buffer[] = [];
    if (type === 'TXT') {
      for (const text of zone.TXT.get(q.name) ?? []) answers.push(txtData(text));
    } else if (type === 'CNAME') {
      const target = zone.CNAME.get(q.name);
      if (target) answers.push(encodeName(target));
    } else if (type === 'MX') {
      for (const mx of zone.MX.get(q.name) ?? []) {
        const preference = Buffer.alloc(2);
        preference.writeUInt16BE(mx.priority);
        answers.push(Buffer.concat([preference, encodeName(mx.exchange)]));
      }
    }
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    // QR, AA, RD copied, RA; NXDOMAIN when the name is unknown.
    header.writeUInt16BE(0x8000 | 0x0400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (known ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((rdata) => {
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(TYPE_CODE[type!], 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    socket.send(Buffer.concat([header, msg.subarray(12, q.end), ...records]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    zone,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
