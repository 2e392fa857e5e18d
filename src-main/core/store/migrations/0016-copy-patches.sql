-- A recipient's copy that differs from its send's base copy only in places (tracking tokens, the
-- Message-ID, a DKIM signature, filled placeholders) is stored as those differences: `patch` holds the
-- edits that make it from the base content (send_id), byte for byte. NULL: the copy is the content as it is.
ALTER TABLE messages ADD COLUMN patch BLOB;
