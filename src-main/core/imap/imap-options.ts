import { isIP } from 'node:net';
import type { ImapFlowOptions } from 'imapflow';
import type { MailerCredentials } from '../services/mailers/mailer-credentials';
import type { MailerRow } from '../store/mailers.repo';

/**
 * Connecting, the greeting, logging in and opening the inbox must be done within this long (wall
 * time): a server that greets and then says nothing fails the attempt instead of holding it for
 * imapflow's 5-minute socket time-out.
 */
export const SETUP_TIMEOUT_MS = 10_000;

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
    connectionTimeout: SETUP_TIMEOUT_MS,
    greetingTimeout: SETUP_TIMEOUT_MS,
    // IDLE starts soon after the inbox is read, so new mail is announced at once.
    autoIdleDelay: 500,
    clientInfo: { name: 'Mailyard' },
  };
}

/** The connection set-up took longer than `SETUP_TIMEOUT_MS`. */
export function setupTimeoutError(): Error {
  return Object.assign(new Error(`the server did not finish greeting, login and opening INBOX within ${SETUP_TIMEOUT_MS / 1000} s`), {
    code: 'ETIMEOUT',
  });
}

/** At most this much of what a server said is quoted in an error. */
const QUOTE_LIMIT = 120;

function quoted(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > QUOTE_LIMIT ? `${printable.slice(0, QUOTE_LIMIT)}...` : printable);
}

/**
 * A failed connection or login in words: the server's answer when it gave one. An answer that is not
 * IMAP is a protocol error (imapflow flags it as a failed login when it answers LOGIN, but no login
 * was refused).
 */
export function describeImapError(err: unknown): string {
  const e = err as {
    authenticationFailed?: boolean;
    responseText?: string;
    serverResponseCode?: string;
    code?: string;
    message?: string;
    parserError?: { parserContext?: { input?: string } };
  };
  if (e.parserError || /^ParserError/.test(e.code ?? '')) {
    const input = e.parserError?.parserContext?.input;
    return `protocol error: the server's answer is not IMAP${input === undefined ? '' : `: ${quoted(input)}`} (${e.code ?? 'ParserError'})`;
  }
  if (e.authenticationFailed) return `${e.serverResponseCode ?? 'AUTHENTICATIONFAILED'} ${e.responseText ?? 'Authentication failed'}`.trim();
  if (e.responseText) return e.responseText;
  const message = (e.message ?? String(err)).replace(/\s+/g, ' ').trim();
  return e.code && !message.includes(e.code) ? `${message} (${e.code})` : message;
}
