import { describe, expect, it } from 'vitest';
import { imapOptions } from '../../../../src-main/core/imap/imap-options';
import { smtpTransportOptions } from '../../../../src-main/core/smtp/connection';
import type { MailerRow } from '../../../../src-main/core/store/mailers.repo';

const row = (secure: string, port: number): MailerRow => ({
  id: '01JDMAILER0000000000000000',
  account_id: 'acc',
  config_type: 'smtp',
  name: 'Relay',
  email: 'app@example.com',
  connection_type: 'basic',
  host: 'mail.example.com',
  port,
  username: 'user',
  secure,
  password_enc: null,
  webhook: null,
  oauth_active: 0,
  oauth_token_enc: null,
  oauth_meta: null,
  status: 'untested',
  last_error: null,
  imap_uidvalidity: null,
  imap_uid_next: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

describe('how each `secure` value connects', () => {
  it('SMTP (nodemailer): implicit TLS, required STARTTLS, STARTTLS when offered, or plain', () => {
    const smtp = (secure: string, port: number) => {
      const o = smtpTransportOptions(row(secure, port), null, false);
      return { secure: o.secure, requireTLS: o.requireTLS, ignoreTLS: o.ignoreTLS };
    };
    const whenOffered = { secure: false, requireTLS: false, ignoreTLS: false };
    expect(smtp('SSL', 587)).toEqual({ secure: true, requireTLS: false, ignoreTLS: false });
    expect(smtp('Tls', 587)).toEqual({ secure: false, requireTLS: true, ignoreTLS: false });
    expect(smtp('None', 587)).toEqual({ secure: false, requireTLS: false, ignoreTLS: true });
    expect(smtp('TlsWhenAvailable', 587)).toEqual(whenOffered);
    // Never TLS from the first byte, whatever the port.
    expect(smtp('TlsWhenAvailable', 465)).toEqual(whenOffered);
    // Auto as before: implicit TLS on 465, else STARTTLS when offered.
    expect(smtp('Auto', 465)).toEqual({ secure: true, requireTLS: false, ignoreTLS: false });
    expect(smtp('Auto', 587)).toEqual(whenOffered);
    expect(smtp('Auto', 25)).toEqual(whenOffered);
  });

  it('SMTP in strict mode connects to the address it checked and names the host for TLS', () => {
    const o = smtpTransportOptions(row('Tls', 587), null, true, '203.0.113.7');
    expect(o.host).toBe('203.0.113.7');
    expect(o.tls).toEqual({ rejectUnauthorized: true, servername: 'mail.example.com' });
    expect(smtpTransportOptions(row('Tls', 587), null, false).tls).toEqual({ rejectUnauthorized: false });
  });

  it('IMAP (imapflow): doSTARTTLS true, false, or left undefined (STARTTLS when offered)', () => {
    const imap = (secure: string, port: number) => {
      const o = imapOptions(row(secure, port), null, false);
      return { secure: o.secure, doSTARTTLS: o.doSTARTTLS };
    };
    expect(imap('SSL', 143)).toEqual({ secure: true, doSTARTTLS: undefined });
    expect(imap('Tls', 143)).toEqual({ secure: false, doSTARTTLS: true });
    expect(imap('None', 143)).toEqual({ secure: false, doSTARTTLS: false });
    expect(imap('TlsWhenAvailable', 143)).toEqual({ secure: false, doSTARTTLS: undefined });
    expect(imap('TlsWhenAvailable', 993)).toEqual({ secure: false, doSTARTTLS: undefined });
    expect(imap('Auto', 993)).toEqual({ secure: true, doSTARTTLS: undefined });
    expect(imap('Auto', 143)).toEqual({ secure: false, doSTARTTLS: undefined });
  });

  it('IMAP in strict mode connects to the address it checked and names the host for TLS', () => {
    const o = imapOptions(row('SSL', 993), null, true, '8.8.8.8');
    expect([o.host, o.servername, o.tls]).toEqual(['8.8.8.8', 'mail.example.com', { rejectUnauthorized: true }]);
    const byName = imapOptions(row('SSL', 993), null, false);
    expect([byName.host, byName.servername]).toEqual(['mail.example.com', undefined]);
  });
});
