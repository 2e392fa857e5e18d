import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDataDir, PRIVATE_FILE_MODE } from '../store/data-dir';

export interface TlsIdentity {
  key: string;
  cert: string;
}

/** The certificate a client must trust to verify the sink, and the file it is kept in (null in memory). */
export interface TlsCertificate {
  pem: string;
  file: string | null;
}

const KEY_FILE = 'smtp-tls-key.pem';
const CERT_FILE = 'smtp-tls-cert.pem';
/** A certificate this close to its end is made anew at start. */
const RENEW_BEFORE_MS = 7 * 24 * 3600 * 1000;

async function makeCertificate(now: Date): Promise<TlsIdentity> {
  // Loaded only when a certificate is made (STARTTLS on a store without one): it costs a start that needs none.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** A kept certificate that still parses and is not about to expire; otherwise undefined. */
async function readKept(dir: string, now: Date): Promise<TlsIdentity | undefined> {
  try {
    const [key, cert] = await Promise.all([readFile(join(dir, KEY_FILE), 'utf8'), readFile(certificateFile(dir), 'utf8')]);
    const validTo = Date.parse(new X509Certificate(cert).validTo);
    return validTo - now.getTime() > RENEW_BEFORE_MS ? { key, cert } : undefined;
  } catch {
    return undefined;
  }
}

/** Where the sink's certificate is kept in a data directory: the file a client is told to trust. */
export function certificateFile(dataDir: string): string {
  return join(dataDir, CERT_FILE);
}

/**
 * The SMTP sink's STARTTLS identity (`smtpTls: 'starttls'`): a self-signed certificate for localhost,
 * made on first start and kept in the data directory (made afresh for every start in memory mode).
 */
export async function loadTlsIdentity(dataDir: string | null, now = new Date()): Promise<TlsIdentity> {
  if (dataDir === null) return makeCertificate(now);
  const kept = await readKept(dataDir, now);
  if (kept) return kept;
  const made = await makeCertificate(now);
  makeDataDir(dataDir);
  await writeFile(join(dataDir, KEY_FILE), made.key, { mode: PRIVATE_FILE_MODE });
  await writeFile(certificateFile(dataDir), made.cert, { mode: PRIVATE_FILE_MODE });
  return made;
}
