-- A send stored as what was asked (JSON, as UTF-8 bytes) (the request's parts the composer reads, with its Message-ID, Date
-- and MIME boundaries fixed) instead of its composed bytes: `raw` stays empty until the first read
-- composes it and writes it here, setting `recipe` back to NULL. Received messages and sends composed
-- at once (signed, tracked, personalised or large ones) keep their raw bytes and a NULL recipe.
ALTER TABLE message_contents ADD COLUMN recipe BLOB;
