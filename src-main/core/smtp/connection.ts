import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { StrictAddressError } from '../net/strict-addresses';
import type { MailerCredentials } from '../services/mailers/mailer-credentials';
import type { MailerRow } from '../store/mailers.repo';

/** nodemailer's SMTP transport, loaded with the first relay or mailer test: most runs make neither. */
export async function loadNodemailer(): Promise<typeof import('nodemailer').default> {
  return (await import('nodemailer')).default;
}

/**
 * The nodemailer options of an SMTP configuration, with bounded time-outs. `secure` as the contract
 * names it (src-shared/schemas/mailers.ts, MAILER_SECURE):
 * - `SSL`: TLS from the first byte (`secure`).
 * - `Auto`: TLS from the first byte on 465, else as `TlsWhenAvailable`.
 * - `TlsWhenAvailable`: neither `secure`, `requireTLS` nor `ignoreTLS`: nodemailer upgrades with
 *   STARTTLS when the server's EHLO offers it and stays plain otherwise.
 * - `Tls`: `requireTLS`: STARTTLS even when not offered; the connection fails without it.
 * - `None`: `ignoreTLS`: plain text, STARTTLS never tried.
 * `address`, when given, is where to connect instead of resolving the host again (strict mode checked
 * that address); the host name still names the server for TLS (SNI and the certificate check).
 */
export function smtpTransportOptions(row: MailerRow, credentials: MailerCredentials, verifyTls: boolean, address?: string): SMTPTransport.Options {
  const implicitTls = row.secure === 'SSL' || (row.secure === 'Auto' && row.port === 465);
  return {
    host: address ?? row.host,
    port: row.port,
    secure: implicitTls,
    requireTLS: row.secure === 'Tls',
    ignoreTLS: row.secure === 'None',
    auth:
      credentials === null
        ? undefined
        : credentials.accessToken !== undefined
          ? { type: 'OAuth2', user: credentials.user, accessToken: credentials.accessToken }
          : { user: credentials.user, pass: credentials.pass },
    tls: { rejectUnauthorized: verifyTls, ...(address !== undefined && address !== row.host ? { servername: row.host } : {}) },
    name: 'mailyard.local',
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

export interface SmtpFailure {
  code?: string;
  /** The command the server answered (nodemailer's `CONN` for the greeting, `EHLO`, `STARTTLS`, `AUTH PLAIN`, ...). */
  command?: string;
  responseCode?: number;
  response?: string;
  message: string;
}

/** A failure that is not the server's answer, in words: the connection error and nodemailer's code. */
function connectionError(err: SmtpFailure): string {
  const reason = err.message.replace(/\s+/g, ' ').trim();
  return `${reason}${err.code && !reason.includes(err.code) ? ` (${err.code})` : ''}`;
}

/**
 * A failure as an SMTP reply: the server's own code and reply when it answered, else a 4.4.x reply
 * in the words of the connection failure (as an MTA reports a host it could not talk to). A host
 * that `--strict-webhook-urls` refuses (no connection was made) is a final 554 5.7.0 in its words:
 * trying again would be refused again.
 */
export function smtpReply(err: SmtpFailure): { code: number; response: string; connectionLevel: boolean } {
  if (err instanceof StrictAddressError) return { code: 554, response: `554 5.7.0 ${err.message}`, connectionLevel: true };
  const connectionLevel = err.code !== 'EENVELOPE' && err.code !== 'EMESSAGE';
  if (typeof err.responseCode === 'number' && err.responseCode > 0) {
    return { code: err.responseCode, response: (err.response ?? err.message).trim(), connectionLevel };
  }
  const enhanced = err.code === 'ETIMEDOUT' ? '4.4.2' : '4.4.1';
  return { code: 421, response: `421 ${enhanced} ${connectionError(err)}`, connectionLevel: true };
}

/** What a connection and login test found: the server's answer, or the connection error, in words. */
export type SmtpCheck = { ok: true; message: string } | { ok: false; message: string; serverAnswer: string | null; failure: SmtpFailure };

/**
 * Connects to the SMTP configuration's server for real, says EHLO, secures the connection as `secure`
 * says, logs in with `credentials` (when any) and quits. What `POST /emulator/mailers/{id}/test` and
 * configureSMTP (`POST /v1/smtpbasic/verify`) run. On failure, `serverAnswer` is the server's reply
 * (e.g. `535 5.7.8 Authentication credentials invalid`) when it gave one, null when the connection
 * itself failed; `message` is that reply (naming the command it answered when that was not the
 * login, e.g. `500 Error: command not recognized (in reply to STARTTLS)`) or the connection error.
 */
export async function checkSmtpLogin(row: MailerRow, credentials: MailerCredentials, verifyTls: boolean, address?: string): Promise<SmtpCheck> {
  try {
    const transport = (await loadNodemailer()).createTransport(smtpTransportOptions(row, credentials, verifyTls, address));
    try {
      await transport.verify();
    } finally {
      transport.close();
    }
    return { ok: true, message: `Connected to ${row.host}:${row.port}${credentials ? ` and logged in as ${credentials.user}` : ''}` };
  } catch (err) {
    const failure = err as SmtpFailure;
    if (typeof failure.responseCode === 'number' && failure.responseCode > 0) {
      const answer = (failure.response ?? failure.message).trim();
      const command =
        failure.command && !failure.command.startsWith('AUTH') ? ` (in reply to ${failure.command === 'CONN' ? 'the connection' : failure.command})` : '';
      return { ok: false, message: answer + command, serverAnswer: answer, failure };
    }
    return { ok: false, message: connectionError(failure), serverAnswer: null, failure };
  }
}
