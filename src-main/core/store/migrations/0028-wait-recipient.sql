-- A wait for a captured message by its recipient (GET /emulator/messages/wait?recipient=) names no
-- account, so the email logs' index, which leads with account_id, cannot serve it; and it must not
-- read the search index, which is written after the copy's 200 or 250 and may lag far behind under
-- load. recipient_lc is the address as the send lower-cased it (the wait lower-cases its filter the
-- same way); newest first by id, so a wait reads only the copies it answers.
CREATE INDEX messages_recipient_lc ON messages (recipient_lc, id);
