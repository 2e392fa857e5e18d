-- The messages of one IMAP configuration, newest first (the control API's list pages by ref_id).
CREATE INDEX imap_messages_mailer ON imap_messages (mailer_id, ref_id);
