import { describe, expect, it } from 'vitest';
import { domainOfAddress, parseDomainName } from '../../../../../src-main/core/services/domains/hostname';

describe('parseDomainName', () => {
  it.each([
    ['Example.COM', 'example.com', 'example.com'],
    ['example.com.', 'example.com', 'example.com'],
    ['  mail.example.co.uk ', 'mail.example.co.uk', 'mail.example.co.uk'],
    ['bücher.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah', '例え.テスト'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ])('accepts %s as %s', (input, ascii, unicode) => {
    expect(parseDomainName(input)).toEqual({ ascii, unicode });
  });

  it.each([
    ['', 'must not be empty'],
    ['localhost', 'at least two labels'],
    ['1.2.3.4', 'not an IP address'],
    ['[::1]', 'not an IP address'],
    ['a..b.com', 'empty label'],
    ['-a.com', 'invalid label'],
    ['a-.com', 'invalid label'],
    ['a_b.example.com', 'invalid label'],
    ['exa mple.com', 'contains a space'],
    ['user@example.com', 'contains a space or one of'],
    ['example.123', ''],
    [`${'a'.repeat(64)}.com`, 'longer than 63'],
    [`${'abcdefghi.'.repeat(26)}com`, 'at most 253'],
    ['xn--zz.com', ''],
  ])('refuses %j', (input, words) => {
    const parsed = parseDomainName(input);
    expect(parsed).toHaveProperty('error');
    expect((parsed as { error: string }).error).toContain(words);
  });

  it('takes the domain of an address', () => {
    expect(domainOfAddress('Ann@Mail.Example.com')).toBe('mail.example.com');
    expect(domainOfAddress('ann')).toBeUndefined();
  });
});
