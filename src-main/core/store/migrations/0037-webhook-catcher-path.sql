-- A webhook that points at one of this Mailyard's catchers stores the catcher, not the port: the path
-- on Mailyard's own listener (`/catch/{id}`, what follows it and the query), joined to the listener's
-- URL as it is now each time the webhook is read. So a data directory started on another port (a
-- copy, a restored snapshot) still delivers to its catchers. NULL: `url` as it was set.
ALTER TABLE webhooks ADD COLUMN catcher_path TEXT;

-- The webhooks stored before: those whose URL is a loopback origin's /catch/{id} of a catcher of this
-- store (a catcher's URL is the listener's own, http on 127.0.0.1, localhost or [::1]).
UPDATE webhooks SET catcher_path = substr(url, instr(substr(url, 8), '/') + 7)
 WHERE (url GLOB 'http://127.0.0.1:*' OR url GLOB 'http://localhost:*' OR url GLOB 'http://[[]::1]:*')
   AND substr(url, instr(substr(url, 8), '/') + 7, 7) = '/catch/'
   AND substr(url, instr(substr(url, 8), '/') + 14, 26) IN (SELECT id FROM catchers)
   AND substr(url, instr(substr(url, 8), '/') + 40, 1) IN ('', '/', '?');
