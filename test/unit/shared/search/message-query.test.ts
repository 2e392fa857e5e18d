import { describe, expect, it } from 'vitest';
import { clauseMatch, toAddressMatch, toFtsMatch } from '../../../../src-main/core/store/fts-match';
import { addressQuery, addressWords, clauseMatchesText, idQuery, parseMessageQuery, type SearchClause } from '../../../../src-shared/search/message-query';

const words = (text: string, phrase = false, prefix = false): Omit<SearchClause, 'field'> => ({ text, phrase, prefix, address: null, negated: false });

describe('the messages search query', () => {
  it('reads words, quoted phrases and operators, case-insensitively', () => {
    expect(parseMessageQuery('FROM:Ann "order shipped" Subject:Receipt IS:Bounced campaign:Spring* hello')).toEqual({
      clauses: [
        { field: 'from', ...words('Ann') },
        { field: 'any', ...words('order shipped', true) },
        { field: 'subject', ...words('Receipt') },
        { field: 'any', ...words('hello', false, true) }, // the last word: a prefix
      ],
      statuses: ['bounced'],
      notStatuses: [],
      campaign: 'Spring',
      notCampaigns: [],
      attachment: null,
      read: null,
      tags: [],
      notTags: [],
      tagged: null,
      before: null,
      after: null,
      larger: null,
      smaller: null,
      warnings: [],
    });
    expect(parseMessageQuery('to:"Bob Lee"').clauses).toEqual([{ field: 'to', ...words('Bob Lee', true) }]);
    // A query ending with is: or campaign: has no word being typed.
    expect(parseMessageQuery('hello is:sent').clauses).toEqual([{ field: 'any', ...words('hello') }]);
  });

  it('searches unknown operators, unknown statuses and unclosed quotes as text', () => {
    expect(parseMessageQuery('x-mailer:foo is:nonsense "open').clauses).toEqual([
      { field: 'any', ...words('x-mailer:foo') },
      { field: 'any', ...words('is:nonsense') },
      { field: 'any', ...words('open', true) },
    ]);
    expect(parseMessageQuery('x-mailer:"a b"').clauses).toEqual([{ field: 'any', ...words('x-mailer a b', true) }]);
    expect(parseMessageQuery('bcc:"a b"').clauses).toEqual([{ field: 'bcc', ...words('a b', true) }]);
  });

  it('gives FTS5 only quoted words: no input is FTS5 syntax', () => {
    expect(toFtsMatch(parseMessageQuery('from:ann "Hello World" subject:ord').clauses)).toBe('{sender} : "ann" AND "hello world" AND {subject} : "ord"*');
    expect(toFtsMatch(parseMessageQuery('NEAR(a b) OR "x" NOT y* ^z {subject}:q').clauses)).toBe(
      '"near a" AND "b" AND "or" AND "x" AND "not" AND "y" AND "z" AND "subject q"*',
    );
    expect(toFtsMatch(parseMessageQuery('"" *** ::: -').clauses)).toBeNull();
    for (const input of ['"', '""""', 'a"b"c', '\u0000\u202e', '{}[]()', 'from:', ':x', 'is:', '\\"', '💌 naïve Straße']) {
      const match = toFtsMatch(parseMessageQuery(input).clauses);
      if (match !== null) expect(match).toMatch(/^(\{\w+\} : )?"[^"]*"\*?( AND (\{\w+\} : )?"[^"]*"\*?)*$/);
    }
  });

  it('checks a clause against text as the index does (the UI, for a live message)', () => {
    const last = (q: string) => parseMessageQuery(q).clauses.at(-1)!;
    expect(clauseMatchesText(last('ann@exa'), 'Ann Lee Ann@Example.com')).toBe(true);
    expect(clauseMatchesText(last('ann@exa x'), 'Ann Lee Ann@Example.com')).toBe(false);
    expect(clauseMatchesText(parseMessageQuery('ann@exa x').clauses[0]!, 'Ann@Example.com')).toBe(false); // not the last: whole
    expect(clauseMatchesText(last('nn@example.com'), 'ann@example.com')).toBe(false); // an address from its start
    expect(clauseMatchesText(last('@example.com'), 'ann@example.com')).toBe(true);
    expect(clauseMatchesText(last('"order ship"'), 'your order shipped')).toBe(false);
    expect(clauseMatchesText(last('"order shipped"'), 'your order shipped')).toBe(true);
    expect(clauseMatchesText(last('order ship'), 'your order shipped')).toBe(true);
  });

  it('reads an address as one word: whole, begun, a domain, or pasted with brackets', () => {
    expect(['ann@x.test', '<Ann@X.test>,', 'ann@', 'ann@x.', '@x.test', '"ann@x.test"', 'mailto:ann@x.test'].map(addressQuery)).toEqual([
      'ann@x.test',
      'ann@x.test',
      'ann@',
      'ann@x',
      '@x.test',
      'ann@x.test',
      null, // a colon is no part of an address: searched as words
    ]);
    for (const text of ['@', 'x.test', 'ann@@', 'a@b@c', '@@x', 'ann at x.test']) expect(addressQuery(text), text).toBeNull();
    const q = parseMessageQuery('from:Shop@Example.com hello to:<bob@x.te');
    expect(q.clauses.map((c) => c.address)).toEqual(['shop@example.com', null, 'bob@x.te']);
    expect(toFtsMatch(q.clauses)).toBe('"hello"');
    expect(toAddressMatch(q.clauses)).toBe('{sender} : "shop@example.com" AND {recipient} : "bob@x.te"*');
    // subject: has no address column: its words are searched.
    expect(parseMessageQuery('subject:ann@x.test').clauses[0]!.address).toBeNull();
  });

  it('takes a whole query of 26 letters and digits as an id (a ref_id or a copy id), upper-cased', () => {
    expect(idQuery(' 01m85jdc8h5swvb6c8w7wrkqfp ')).toBe('01M85JDC8H5SWVB6C8W7WRKQFP');
    for (const q of ['', '01M85JDC8H5SWVB6C8W7WRKQF', '01M85JDC8H5SWVB6C8W7WRKQFP x', 'to:01M85JDC8H5SWVB6C8W7WRKQFP']) expect(idQuery(q), q).toBeNull();
  });

  it('finds the addresses of a text, each with its domain', () => {
    expect(addressWords('Mail Ann.Lee+tag@Example.COM. or <bob@x-y.test>, not @foo nor x@ nor ...@q.t')).toEqual([
      'ann.lee+tag@example.com',
      '@example.com',
      'bob@x-y.test',
      '@x-y.test',
    ]);
    // Long runs of address characters (a regular expression that backtracks would not return from these).
    expect(addressWords(`${'a'.repeat(200_000)}@${'b.'.repeat(100_000)}`)).toEqual([
      `${'a'.repeat(200_000)}@${'b.'.repeat(99_999)}b`,
      `@${'b.'.repeat(99_999)}b`,
    ]);
    expect(addressWords(`${'.'.repeat(100_000)}@`.repeat(3))).toEqual([]);
  });

  it('reads negation (- or !) of words, phrases and every operator; a negated word is whole, not a prefix', () => {
    const q = parseMessageQuery('newsletter -unsubscribe !"spring sale" -from:ann -is:bounced -campaign:spr* -has:attachment -');
    expect(q.clauses).toEqual([
      { field: 'any', ...words('newsletter') },
      { field: 'any', ...words('unsubscribe'), negated: true },
      { field: 'any', ...words('spring sale', true), negated: true },
      { field: 'from', ...words('ann'), negated: true },
      { field: 'any', ...words('-', false, true) }, // a lone minus is text
    ]);
    expect(q.notStatuses).toEqual(['bounced']);
    expect(q.notCampaigns).toEqual(['spr']);
    expect(q.attachment).toBe(false);
    expect(q.warnings).toEqual([]);
    expect(parseMessageQuery('news -unsub').clauses.at(-1)).toMatchObject({ negated: true, prefix: false });
    // The words that must hold go to one MATCH; each negated clause is a lookup of its own.
    expect(toFtsMatch(q.clauses)).toBe('"newsletter"'); // the lone minus has no word
    expect(clauseMatch(q.clauses[1]!)).toEqual({ index: 'words', match: '"unsubscribe"' });
    expect(clauseMatch(q.clauses[3]!)).toEqual({ index: 'words', match: '{sender} : "ann"' });
  });

  it('reads cc:, bcc:, filename:, message-id: and has:attachment', () => {
    const q = parseMessageQuery('cc:carol@x.test bcc:dan filename:"My Invoice.pdf" message-id:<abc.1@x.test> HAS:Attachments');
    expect(q.clauses.map((c) => [c.field, c.address])).toEqual([
      ['cc', 'carol@x.test'],
      ['bcc', null],
      ['filename', null],
      ['message-id', null],
    ]);
    expect(q.attachment).toBe(true);
    expect(toAddressMatch(q.clauses)).toBe('{recipient} : "carol@x.test"');
    expect(toFtsMatch(q.clauses)).toBe('{recipient} : "dan" AND {headers} : "mlyfnmy mlyfninvoice mlyfnpdf" AND {headers} : "message id abc 1 x test"'); // the last term is has:, so no prefix
    expect(parseMessageQuery('attachment:inv').clauses[0]).toMatchObject({ field: 'filename', prefix: true });
  });

  it('reads before: and after: as UTC instants; negated, each is the other', () => {
    const at = (s: string) => Date.parse(s);
    expect(parseMessageQuery('before:2026-11-24 after:2026-11-20T10:30')).toMatchObject({
      before: at('2026-11-24T00:00:00Z'),
      after: at('2026-11-20T10:30:00Z'),
      warnings: [],
    });
    expect(parseMessageQuery('after:2026-11-24T10:00:00+02:00').after).toBe(at('2026-11-24T08:00:00Z'));
    expect(parseMessageQuery('-before:2026-11-24 -after:2026-11-25')).toMatchObject({ after: at('2026-11-24T00:00:00Z'), before: at('2026-11-25T00:00:00Z') });
    expect(parseMessageQuery('before:2026-11-24 before:2026-11-20').before).toBe(at('2026-11-20T00:00:00Z')); // the narrower
  });

  it("reads Mailpit's read state and tags: is:read, is:unread, is:tagged, tag: (negated, the other)", () => {
    expect(parseMessageQuery('is:read')).toMatchObject({ read: true, statuses: [], clauses: [], warnings: [] });
    expect(parseMessageQuery('IS:Unread').read).toBe(false);
    expect(parseMessageQuery('-is:read').read).toBe(false);
    expect(parseMessageQuery('tag:urgent -tag:done tag:urgent')).toMatchObject({ tags: ['urgent'], notTags: ['done'], clauses: [] });
    // Tags may have spaces (as in Mailpit): quoted.
    expect(parseMessageQuery('tag:"vip customer" -tag:"on hold"')).toMatchObject({ tags: ['vip customer'], notTags: ['on hold'], clauses: [], warnings: [] });
    expect(parseMessageQuery('-is:tagged').tagged).toBe(false);
  });

  it("reads Mailpit's larger: and smaller: as bytes (k, m, g 1024-based, any case); negated, each is the other", () => {
    expect(parseMessageQuery('larger:2048 smaller:1.5M')).toMatchObject({ larger: 2048, smaller: 1_572_864, clauses: [], warnings: [] });
    expect(['500', '10k', '10KB', '10kB', '2m', '2Mb', '1g', '0.5K', '3.9'].map((v) => parseMessageQuery(`larger:${v}`).larger)).toEqual([
      500, 10_240, 10_240, 10_240, 2_097_152, 2_097_152, 1_073_741_824, 512, 3,
    ]);
    // As in Mailpit: NOT larger than a size is smaller than it, and the other way round.
    expect(parseMessageQuery('-larger:10k !smaller:1k')).toMatchObject({ larger: 1024, smaller: 10_240 });
    // Two of one kind: the narrower.
    expect(parseMessageQuery('larger:1k larger:5k smaller:9k smaller:7k')).toMatchObject({ larger: 5120, smaller: 7168 });
    expect(parseMessageQuery('larger:"10 MB"').larger).toBe(10_485_760);
  });

  it('names a size it cannot read in warnings, and searches it as text', () => {
    for (const value of ['abc', '10x', '-5', '1,5m', '1e3', 'k', '"10 k m"']) {
      const q = parseMessageQuery(`larger:${value}`);
      expect(q.larger, value).toBeNull();
      expect(q.warnings, value).toEqual([
        expect.stringMatching(/^larger:.* is not a size: searched as text \(a number of bytes, or with a unit: 500k, 1\.5M, 2g\)$/),
      ]);
    }
    expect(parseMessageQuery('smaller:huge')).toMatchObject({ smaller: null, clauses: [{ field: 'any', text: 'smaller:huge' }] });
  });

  it("reads reply-to: and addressed: (Mailpit's To, Cc, Bcc, From or Reply-To), addresses and words", () => {
    const q = parseMessageQuery('reply-to:Help@Shop.test addressed:ann@x.test REPLY-TO:"Support Team" -addressed:bob');
    expect(q.clauses.map((c) => [c.field, c.address, c.negated])).toEqual([
      ['reply-to', 'help@shop.test', false],
      ['addressed', 'ann@x.test', false],
      ['reply-to', null, false],
      ['addressed', null, true],
    ]);
    // The Reply-To's addresses and words are marked in the indexes (reply-to-words.ts): no other header's or body's word is one of them.
    expect(toAddressMatch(q.clauses)).toBe('{other} : "mlyrt+help@shop.test" AND ({sender recipient} : "ann@x.test" OR {other} : "mlyrt+ann@x.test")');
    expect(toFtsMatch(q.clauses)).toBe('{headers} : "mlyrtsupport mlyrtteam"');
    expect(clauseMatch(q.clauses[3]!)).toEqual({ index: 'words', match: '({sender recipient} : "bob" OR {headers} : "mlyrtbob")' });
    // Being typed: a prefix in both places.
    expect(clauseMatch(parseMessageQuery('addressed:@sho').clauses[0]!)).toEqual({
      index: 'addresses',
      match: '({sender recipient} : "@sho"* OR {other} : "mlyrt+@sho"*)',
    });
  });

  it('names what it does not understand in warnings, and searches it as text', () => {
    const q = parseMessageQuery('label:work is:nonsense has:inline before:yesterday x-mailer:"a b" https://x.test/a 10:30');
    expect(q.warnings).toHaveLength(5);
    expect(q.warnings[0]).toMatch(
      /^label: is not an operator: searched as text \(operators: from: to: cc: bcc: reply-to: addressed: subject: filename: attachment: message-id: has: is: tag: campaign: before: after: larger: smaller:\)$/,
    );
    expect(q.warnings[1]).toMatch(/^is:nonsense is not a status/);
    expect(q.warnings[2]).toMatch(/^has:inline is not known/);
    expect(q.warnings[3]).toMatch(/^before:yesterday is not a date: .*2026-11-24.*UTC/);
    expect(q.warnings[4]).toMatch(/^x-mailer: is not an operator/);
    expect(q.clauses.map((c) => c.text)).toEqual(['label:work', 'is:nonsense', 'has:inline', 'before:yesterday', 'x-mailer a b', 'https://x.test/a', '10:30']);
    expect(q.before).toBeNull();
  });
});
