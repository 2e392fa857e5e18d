-- oauthLogin's documented options (rest-api/initiate-o-auth-login-flow), kept with the pending request
-- until the consent page is answered: JSON {client_state, include_sent, include_spam, include_trash,
-- strict_replies, webhook}. NULL for requests made before this migration.
ALTER TABLE oauth_requests ADD COLUMN options TEXT;
