-- Messages the IMAP connector could not take whole: why (mailparser refused it, or it was over the
-- size limit), and, when only its header block is kept, its size on the server.
ALTER TABLE imap_messages ADD COLUMN problem TEXT;
ALTER TABLE imap_messages ADD COLUMN server_size INTEGER;
