import { EmailAddress } from '../../../../src-shared/schemas/email';

/**
 * The `email` claim of an OpenID Connect ID token (a JWT: `header.payload.signature`, base64url),
 * read without checking the signature: offline, the emulator has none of the issuer's keys, so the
 * address is taken on trust, as from any caller of the emulator. Undefined when the token is not a
 * JWT whose payload is a JSON object with an email address as `email` (the docs' `eyJ...`, say).
 */
export function idTokenEmail(idToken: string | undefined): string | undefined {
  const parts = idToken?.split('.');
  if (parts?.length !== 3 || parts[1] === '') return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const email = typeof claims === 'object' && claims !== null ? (claims as { email?: unknown }).email : undefined;
  return EmailAddress.safeParse(email).success ? (email as string) : undefined;
}
