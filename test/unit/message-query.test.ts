import { describe, expect, it } from 'vitest';
import { clauseMatchesText, parseMessageQuery, toFtsMatch } from '../../src-shared/search/message-query';

describe('the messages search query', () => {
  it('reads words, quoted phrases and operators, case-insensitively', () => {
    expect(parseMessageQuery('FROM:Ann "order shipped" Subject:Receipt IS:Bounced campaign:Spring* hello')).toEqual({
      clauses: [
        { field: 'from', text: 'Ann', phrase: false },
        { field: 'any', text: 'order shipped', phrase: true },
        { field: 'subject', text: 'Receipt', phrase: false },
        { field: 'any', text: 'hello', phrase: false },
      ],
      statuses: ['bounced'],
      campaign: 'Spring',
    });
    expect(parseMessageQuery('to:"Bob Lee"').clauses).toEqual([{ field: 'to', text: 'Bob Lee', phrase: true }]);
  });

  it('searches unknown operators, unknown statuses and unclosed quotes as text', () => {
    expect(parseMessageQuery('x-mailer:foo is:nonsense "open').clauses).toEqual([
      { field: 'any', text: 'x-mailer:foo', phrase: false },
      { field: 'any', text: 'is:nonsense', phrase: false },
      { field: 'any', text: 'open', phrase: true },
    ]);
    expect(parseMessageQuery('bcc:"a b"').clauses).toEqual([{ field: 'any', text: 'bcc a b', phrase: true }]);
  });

  it('gives FTS5 only quoted words: no input is FTS5 syntax', () => {
    expect(toFtsMatch(parseMessageQuery('from:ann@example.com "Hello World"').clauses)).toBe('{sender} : "ann example com"* AND "hello world"');
    expect(toFtsMatch(parseMessageQuery('NEAR(a b) OR "x" NOT y* ^z {subject}:q').clauses)).toBe(
      '"near a"* AND "b"* AND "or"* AND "x" AND "not"* AND "y"* AND "z"* AND "subject q"*',
    );
    expect(toFtsMatch(parseMessageQuery('"" *** ::: -').clauses)).toBeNull();
    for (const input of ['"', '""""', 'a"b"c', '\u0000\u202e', '{}[]()', 'from:', ':x', 'is:', '\\"', '💌 naïve Straße']) {
      const match = toFtsMatch(parseMessageQuery(input).clauses);
      if (match !== null) expect(match).toMatch(/^(\{\w+\} : )?"[^"]*"\*?( AND (\{\w+\} : )?"[^"]*"\*?)*$/);
    }
  });

  it('checks a clause against text as the index does (the UI, for a live message)', () => {
    expect(clauseMatchesText({ field: 'any', text: 'ann@exa', phrase: false }, 'Ann@Example.com')).toBe(true);
    expect(clauseMatchesText({ field: 'any', text: 'order ship', phrase: true }, 'your order shipped')).toBe(false);
    expect(clauseMatchesText({ field: 'any', text: 'order shipped', phrase: true }, 'your order shipped')).toBe(true);
  });
});
