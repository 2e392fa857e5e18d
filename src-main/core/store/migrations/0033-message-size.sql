-- A copy's size in bytes, its raw message's (the detail's `size`, the Mailpit API's `Size`), for the
-- search's larger: and smaller:, which then read the copy's row only: computing it reads the row of
-- its send's content too, a page a copy (half a second for a count at 100,000 copies). Written with
-- each copy. NULL for the copies stored before this: the search computes theirs (COPY_SIZE in
-- store/message-search.ts), so no store is rewritten at the upgrade.
ALTER TABLE messages ADD COLUMN size INTEGER;
