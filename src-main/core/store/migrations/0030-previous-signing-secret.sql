-- A signing secret rotation's grace period: the secret replaced, which still signs every request
-- (a second `v1,` signature in the same header) until previous_secret_until, in emulator-clock
-- milliseconds. NULL: no rotation in its grace period.
ALTER TABLE accounts ADD COLUMN previous_signing_secret TEXT;
ALTER TABLE accounts ADD COLUMN previous_secret_until INTEGER;
