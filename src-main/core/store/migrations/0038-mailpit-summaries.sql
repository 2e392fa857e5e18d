-- Mailpit's list summary of a copy (its header facts, snippet and attachment count, as JSON: see
-- services/mailpit/stored-summary.ts), written by the search indexer with the copy's index rows, so
-- /api/v1/messages and /api/v1/search read no message. Copies stored before this migration have none:
-- each gets its summary when it is first listed (made from its bytes once, then stored), so no store
-- is rewritten at the upgrade. A copy's row goes when the copy does.
CREATE TABLE mailpit_summaries (
  message_key INTEGER PRIMARY KEY,  -- the copy's key (messages.key)
  summary     TEXT NOT NULL
);

CREATE TRIGGER messages_mailpit_summary_delete AFTER DELETE ON messages BEGIN
  DELETE FROM mailpit_summaries WHERE message_key = old.key;
END;
