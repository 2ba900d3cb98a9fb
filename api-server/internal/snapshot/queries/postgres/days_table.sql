-- The (organization, account, day) keys this import touched (changes.go):
-- each written or removed row's day after the write and, for a row that
-- moved, before it. The merge's statements add to it as they write the
-- change log. A day is fresh when it held no row before this import
-- (insights_merge.sql sets it; every other writer leaves it false, the
-- general case): sums_insert.sql takes a fresh day's sums from the staging
-- table instead of reading its rows back.
CREATE TEMP TABLE svc_import_days (
    organization_id text NOT NULL,
    account_id      text NOT NULL,
    date            date NOT NULL,
    fresh           boolean NOT NULL DEFAULT false,
    PRIMARY KEY (organization_id, account_id, date)
) ON COMMIT DROP
