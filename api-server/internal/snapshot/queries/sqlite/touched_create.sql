-- The insight rows this import writes or removes (changes.go), recorded
-- before each write (SQLite has no RETURNING into another statement): the
-- row, its organization, account and day after the write (for a removal,
-- the removed row's), the account and day it had before (NULL for a new
-- row), the kind of change, and the step (1: an account's copies, 2: the
-- upsert, 3: a complete window). PostgreSQL logs as it writes.
CREATE TEMP TABLE svc_import_touched (
    n               INTEGER PRIMARY KEY,
    insight_id      TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    date            TEXT NOT NULL,
    old_account_id  TEXT,
    old_date        TEXT,
    kind            TEXT NOT NULL,
    stage           INTEGER NOT NULL
)
