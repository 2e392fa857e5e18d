-- The search indexes (message_search, message_addresses) are written after a copy is stored, not with
-- it: the SMTP sink and the send answer once the copy is in `messages`, and SearchIndexer
-- (services/search) indexes what this table lists, in batches. A copy's row here is written in the
-- same transaction as the copy (the trigger), so a crash between the two leaves nothing unindexed
-- for good: the indexer takes what is left when the emulator starts again.
CREATE TABLE search_pending (message_rowid INTEGER PRIMARY KEY);

CREATE TRIGGER messages_search_pending AFTER INSERT ON messages BEGIN
  INSERT INTO search_pending (message_rowid) VALUES (new.rowid);
END;

CREATE TRIGGER messages_search_pending_delete AFTER DELETE ON messages BEGIN
  DELETE FROM search_pending WHERE message_rowid = old.rowid;
END;
