-- The (organization, account, day) keys this import touched (changes.go):
-- each written or removed row's day after the write and, for a row that
-- moved, before it. The merge's statements add to it as they write the
-- change log.
CREATE TEMP TABLE svc_import_days (
    organization_id text NOT NULL,
    account_id      text NOT NULL,
    date            date NOT NULL,
    PRIMARY KEY (organization_id, account_id, date)
) ON COMMIT DROP
