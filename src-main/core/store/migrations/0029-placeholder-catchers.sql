-- Placeholder for the number reserved for another branch (wt/catchers: 0029-catchers.sql); dropped at merge.
SELECT 1;
