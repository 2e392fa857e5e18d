-- Click tracking of many links: a copy's tracked links are `/t/c/{key}{n}`, its own random key
-- (one tracking_tokens row of kind 'click', url NULL, links_of set) followed by the link's number, 0 to 999.
-- The links themselves (URL and name) are stored once in tracked_links, under links_of: the copy whose
-- list they are, shared by every copy of the send made from the same HTML. Before, each tracked link of
-- each copy was its own row (200 recipients of 1,000 links: 200,000 rows).
ALTER TABLE tracking_tokens ADD COLUMN links_of TEXT;
CREATE INDEX tracking_tokens_links_of ON tracking_tokens (links_of) WHERE links_of IS NOT NULL;

CREATE TABLE tracked_links (
  links_of   TEXT NOT NULL,
  n          INTEGER NOT NULL,
  url        TEXT NOT NULL,
  link_name  TEXT NOT NULL,
  PRIMARY KEY (links_of, n)
) WITHOUT ROWID;

-- A list goes with the last key that uses it (a copy deleted, its send's other copies kept, or all of them).
CREATE TRIGGER tracked_links_release AFTER DELETE ON tracking_tokens
WHEN old.links_of IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tracking_tokens WHERE links_of = old.links_of)
BEGIN
  DELETE FROM tracked_links WHERE links_of = old.links_of;
END;
