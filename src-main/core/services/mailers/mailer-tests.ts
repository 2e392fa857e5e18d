import type { MailerTestResult } from '../../../../src-shared/schemas/mailers';
import type { MailerRow } from '../../store/mailers.repo';
import type { MailersService } from './mailers.service';

/** A connection and login check of one configuration, by the protocol adapter of its type. */
type Check = { test(row: MailerRow): Promise<{ ok: boolean; message: string }> };

export interface MailerTestsDeps {
  mailers: MailersService;
  /** The SMTP relay's check of an SMTP configuration. */
  smtp: Check;
  /** The IMAP connector's check of an IMAP configuration. */
  imap: Check;
}

/** `POST /emulator/mailers/{id}/test`: checks a configuration against its real server, SMTP or IMAP as it is. */
export class MailerTests {
  constructor(private readonly deps: MailerTestsDeps) {}

  test(mailerId: string): Promise<MailerTestResult> {
    return this.deps.mailers.test(mailerId, (row) => (row.config_type === 'smtp' ? this.deps.smtp.test(row) : this.deps.imap.test(row)));
  }
}
