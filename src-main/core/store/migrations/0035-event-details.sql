-- What tells an event from another of its kind, for a message's Events tab: its payload's own fields
-- as JSON (a bounce's type, category and reply; an SMTP error's code and response; a click's URL...),
-- without the copy's facts every event repeats. NULL for events that carry none (a delivery, a
-- spam complaint) and for those recorded before this.
ALTER TABLE message_events ADD COLUMN details TEXT;
