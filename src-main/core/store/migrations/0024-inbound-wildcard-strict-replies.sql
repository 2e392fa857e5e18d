-- The inbound guide's domain options: `wildcard` (the route also catches every subdomain of the domain)
-- and `strict_replies` (only replies to a message the account sent are posted).
ALTER TABLE inbound_domains ADD COLUMN wildcard INTEGER NOT NULL DEFAULT 0 CHECK (wildcard = 0 OR wildcard = 1);
ALTER TABLE inbound_domains ADD COLUMN strict_replies INTEGER NOT NULL DEFAULT 0 CHECK (strict_replies = 0 OR strict_replies = 1);
