-- The key the copies of a send share their stored bytes by was named send_id, but it names a content
-- blob (one per composed message, shared by the recipients who got the same bytes), not a send: a send
-- is its ref_id. Renamed content_id; SQLite rewrites the foreign key, indexes and triggers that use it.
ALTER TABLE message_contents RENAME COLUMN send_id TO content_id;
ALTER TABLE messages RENAME COLUMN send_id TO content_id;
