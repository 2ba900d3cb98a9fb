-- See postgres/touched_create.sql.
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
