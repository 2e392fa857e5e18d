import { isIP } from 'node:net';
import type { ImapFlowOptions } from 'imapflow';
import type { MailerRow } from '../store/mailers.repo';
import type { MailerCredentials } from '../services/mailers/mailer-credentials';

/** Reconnection delays after a failure, on the emulator clock: 1 s, doubling, at most 5 minutes. */
export function reconnectDelay(failures: number): number {
  return Math.min(1000 * 2 ** Math.max(0, failures - 1), 5 * 60_000);
}

/**
 * The imapflow options of an IMAP configuration, with bounded time-outs. `secure` as the contract names
 * it (src-shared/schemas/mailers.ts, MAILER_SECURE):
 * - `SSL`: TLS from the first byte (`secure`).
 * - `Auto`: TLS from the first byte on 993, else as `TlsWhenAvailable`.
 * - `TlsWhenAvailable`: `doSTARTTLS` left undefined: imapflow upgrades with STARTTLS when the server's
 *   capabilities offer it and stays plain otherwise.
 * - `Tls`: `doSTARTTLS: true`: STARTTLS even when not offered; the connection fails without it.
 * - `None`: `doSTARTTLS: false`: plain text, STARTTLS never tried.
 * `address`, when given, is where to connect instead of resolving the host (strict mode checked that
 * address); the host name still names the server for TLS (SNI and the certificate check).
 */
export function imapOptions(row: MailerRow, credentials: MailerCredentials, verifyTls: boolean, address?: string): ImapFlowOptions {
  const implicitTls = row.secure === 'SSL' || (row.secure === 'Auto' && row.port === 993);
  return {
    host: address ?? row.host,
    ...(address !== undefined && address !== row.host && isIP(row.host) === 0 ? { servername: row.host } : {}),
    port: row.port,
    secure: implicitTls,
    doSTARTTLS: row.secure === 'Tls' ? true : row.secure === 'None' ? false : undefined,
    auth: credentials === null ? undefined : { user: credentials.user, pass: credentials.pass, accessToken: credentials.accessToken },
    tls: { rejectUnauthorized: verifyTls },
    logger: false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    // IDLE starts soon after the inbox is read, so new mail is announced at once.
    autoIdleDelay: 500,
    clientInfo: { name: 'Mailyard' },
  };
}

/** A failed connection or login in words: the server's answer when it gave one. */
export function describeImapError(err: unknown): string {
  const e = err as { authenticationFailed?: boolean; responseText?: string; serverResponseCode?: string; code?: string; message?: string };
  if (e.authenticationFailed) return `${e.serverResponseCode ?? 'AUTHENTICATIONFAILED'} ${e.responseText ?? 'Authentication failed'}`.trim();
  if (e.responseText) return e.responseText;
  const message = (e.message ?? String(err)).replace(/\s+/g, ' ').trim();
  return e.code && !message.includes(e.code) ? `${message} (${e.code})` : message;
}
