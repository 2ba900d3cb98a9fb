-- The insight rows this import wrote or removed (changes.go): the row, its
-- organization, account and day after the write (for a removal, the removed
-- row's), the account and day it had before (NULL for a new row), the kind
-- of change, and the statement that recorded it (1: an account's copies,
-- 2: the upsert, 3: a complete window).
CREATE TEMP TABLE svc_import_touched (
    n               bigint GENERATED ALWAYS AS IDENTITY,
    insight_id      text NOT NULL,
    organization_id text NOT NULL,
    account_id      text NOT NULL,
    date            date NOT NULL,
    old_account_id  text,
    old_date        date,
    kind            text NOT NULL,
    stage           int NOT NULL
) ON COMMIT DROP
