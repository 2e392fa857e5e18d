-- Every query of the email logs has a created-at window (the last 7 days by default), so each index
-- the logs read ends with created_ms after the id: a window is then checked in the index, counted
-- without reading a row, and a page reads only the rows it answers. The subject filter (an exact
-- match, as the real service's) gets an index of its own. The ref_id index leads with both
-- equalities of a refId query, so the planner takes it over walking the account's whole list in id order.
DROP INDEX messages_account;
DROP INDEX messages_recipient;
DROP INDEX messages_domain;
DROP INDEX messages_campaign;
DROP INDEX messages_campaign_status;
DROP INDEX messages_status;
DROP INDEX messages_from;
DROP INDEX messages_ref;
CREATE INDEX messages_account ON messages (account_id, id, created_ms);
CREATE INDEX messages_recipient ON messages (account_id, recipient_lc, id, created_ms);
CREATE INDEX messages_domain ON messages (account_id, recipient_domain, id, created_ms);
CREATE INDEX messages_campaign ON messages (account_id, campaign_id, id, created_ms);
CREATE INDEX messages_campaign_status ON messages (account_id, campaign_id, status, id, created_ms);
CREATE INDEX messages_status ON messages (account_id, status, id, created_ms);
CREATE INDEX messages_from ON messages (account_id, from_email COLLATE NOCASE, id, created_ms);
CREATE INDEX messages_subject ON messages (account_id, subject, id, created_ms);
CREATE INDEX messages_ref ON messages (ref_id, account_id, id);
