import { createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

/** The DKIM selector of a domain added without one. */
export const DEFAULT_DKIM_SELECTOR = 'mailyard';

/** A DKIM key pair: PKCS#8 PEM private key, base64 DER SubjectPublicKeyInfo public key. */
export interface DkimKeyPair {
  privateKeyPem: string;
  publicKeyBase64: string;
}

/** What the composer needs to sign a message of the domain. */
export interface DkimSigningKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

const generateRsa = promisify(generateKeyPair);

/** A real RSA-2048 key, generated off the main thread. */
export async function generateDkimKey(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyBase64: publicKey.toString('base64') };
}

/** The DKIM public key (base64 DER) of a stored private key: the published value is derived, never stored twice. */
export function publicKeyOf(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' }).toString('base64');
}
