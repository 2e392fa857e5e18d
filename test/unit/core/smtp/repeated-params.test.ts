import { describe, expect, it } from 'vitest';
import { conflictingParam } from '../../../../src-main/core/smtp/repeated-params';

describe('conflictingParam', () => {
  it('sees no conflict in a parameter repeated with the same value, whatever the case of its name', () => {
    expect(conflictingParam('MAIL FROM:<app@example.com> size=176 SMTPUTF8 SMTPUTF8 BODY=8BITMIME')).toBeUndefined();
    expect(conflictingParam('MAIL FROM:<app@example.com> BODY=8BITMIME body=8BITMIME')).toBeUndefined();
    expect(conflictingParam('MAIL FROM:<app@example.com>')).toBeUndefined();
  });

  it('names the first parameter given twice with different values (a flag and a value differ too)', () => {
    expect(conflictingParam('MAIL FROM:<app@example.com> SIZE=10 BODY=7BIT SIZE=20 BODY=8BITMIME')).toBe('SIZE');
    expect(conflictingParam('MAIL FROM:<app@example.com> SMTPUTF8 SMTPUTF8=yes')).toBe('SMTPUTF8');
    expect(conflictingParam('RCPT TO:<ann@example.org> ORCPT=rfc822;a@b ORCPT=rfc822;c@d')).toBe('ORCPT');
  });

  it('reads the parameters after the address, a source route or a value with = or : in it included', () => {
    expect(conflictingParam('MAIL FROM:<@relay.example:app@example.com> ENVID=a=b ENVID=a=b')).toBeUndefined();
    expect(conflictingParam('MAIL FROM:<app@example.com> ENVID=x:y ENVID=x:z')).toBe('ENVID');
  });
});
