-- Addresses as whole words for the Messages search (see addressWords in src-shared/search/message-query.ts).
-- message_search splits `ann@example.com` into `ann`, `example` and `com`; finding it there means
-- gathering every entry of the words starting with `com` (a query's last word may be a prefix), which
-- at 100,000 messages took 30 times as long as at 1,000. Here an address is one word (the tokenizer
-- keeps @ . _ % + - inside a word), with its `@domain` beside it, so a pasted address or `to:ann@`
-- reads that address's entries only. Columns: sender and recipient (this copy's), and other (the
-- addresses of the header lines and of the body text). Contentless and deleted with its copy, as
-- message_search is; rowid = the copy's rowid in messages. Each query of it is one word, so it keeps
-- no word positions (detail = column): a 200-recipient send's store grows 0.2 MB less.
CREATE VIRTUAL TABLE message_addresses USING fts5(
  sender, recipient, other,
  content = '', contentless_delete = 1, detail = column,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '@._%+-'"
);

CREATE TRIGGER messages_addresses_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_addresses WHERE rowid = old.rowid;
END;

-- Copies stored before this migration: their sender's and recipient's address (each with its @domain),
-- and the header block of their send's content as it stands (its addresses come out as words; the
-- @domain of an address found only there is not indexed, nor are the addresses of their bodies).
INSERT INTO message_addresses (rowid, sender, recipient, other)
SELECT m.rowid,
  CASE WHEN instr(m.from_email, '@') > 0 THEN m.from_email || ' ' || substr(m.from_email, instr(m.from_email, '@')) ELSE m.from_email END,
  CASE WHEN instr(m.recipient_email, '@') > 0 THEN m.recipient_email || ' ' || substr(m.recipient_email, instr(m.recipient_email, '@')) ELSE m.recipient_email END,
  CAST(substr(c.raw, 1, CASE WHEN instr(c.raw, X'0D0A0D0A') > 0 THEN instr(c.raw, X'0D0A0D0A') ELSE 65536 END) AS TEXT)
FROM messages m JOIN message_contents c ON c.send_id = m.send_id;

-- Merges (see store/search-upkeep.ts) combine a level's segments once it has two, not four: an idle
-- store keeps about one segment a level, and a search reads fewer of them.
INSERT INTO message_search (message_search, rank) VALUES ('usermerge', 2);
INSERT INTO message_addresses (message_addresses, rank) VALUES ('usermerge', 2);
