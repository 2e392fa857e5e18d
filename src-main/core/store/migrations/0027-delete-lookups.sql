-- Deleting a copy or a content looks up what points at it: a content's copies (its ON DELETE CASCADE,
-- and the check that no copy of a send is left before its content goes) and a copy's scheduled events
-- (their cascade). Without these indexes each lookup read the whole table: deleting 5,000 copies of
-- their own content among 10,000 held the event loop for seconds, and deleting every copy grew with
-- the square of their number. Both keys are ULIDs, so new rows go at the end of each index.
CREATE INDEX messages_content ON messages (content_id);
CREATE INDEX scheduled_events_message ON scheduled_events (message_id);
