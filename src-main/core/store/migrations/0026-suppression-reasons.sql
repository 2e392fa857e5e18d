-- Why an address is suppressed and since when: a hard bounce and a spam complaint suppress too (as
-- SES, SendGrid and Postmark do by default), so an entry names its reason (the bounce's SMTP reply,
-- "spam complaint", "unsubscribed") and the copy that caused it (null for the API's unsubscribe).
ALTER TABLE suppressions ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE suppressions ADD COLUMN message_id TEXT;
