-- Full-text search of captured messages (the Messages screen's search box, GET /emulator/messages?q=).
-- One row per copy (rowid = the copy's rowid in messages), contentless: the words are indexed, the text
-- is not stored twice. Columns: subject; sender and recipient (address and name); body (the text part
-- and the HTML part without its tags); headers (the header lines). Written with each copy by
-- MessagesRepo.insertMessage; a copy's row goes when the copy does (the trigger below also covers the
-- cascades: Delete all, an account's removal). Nothing may VACUUM messages (it could renumber rowids).
CREATE VIRTUAL TABLE message_search USING fts5(
  subject, sender, recipient, body, headers,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_search WHERE rowid = old.rowid;
END;

-- Copies stored before this migration: their subject, addresses and header lines (the header block of
-- their send's content, as stored). Their bodies are not indexed (that needs a MIME parser).
INSERT INTO message_search (rowid, subject, sender, recipient, body, headers)
SELECT m.rowid, m.subject, m.from_email || ' ' || m.from_name, m.recipient_email || ' ' || m.recipient_name, '',
  CAST(substr(c.raw, 1, CASE WHEN instr(c.raw, X'0D0A0D0A') > 0 THEN instr(c.raw, X'0D0A0D0A') ELSE 65536 END) AS TEXT)
FROM messages m JOIN message_contents c ON c.send_id = m.send_id;
