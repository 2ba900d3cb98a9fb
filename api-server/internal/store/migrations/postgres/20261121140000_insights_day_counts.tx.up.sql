-- Per-day row counts of insights_daily, so that an insights page at a deep
-- offset is positioned without walking the rows before it: the page's first
-- day is found by summing at most 90 day counts, and only that day's rows are
-- skipped (see internal/store/queries/postgres/insights_seek.sql). The counts are kept by
-- statement-level triggers on every kind of write (INSERT, including COPY and
-- INSERT … ON CONFLICT; UPDATE; DELETE, including cascades; TRUNCATE), so any
-- writer keeps them exact; the triggers are ENABLE ALWAYS, so they also fire
-- under session_replication_role = replica (bulk loads, logical replication).
-- A day's count may reach 0 and stay as a row; a 0 never positions a page.
CREATE TABLE IF NOT EXISTS insights_daily_counts (
    organization_id text NOT NULL,
    date            date NOT NULL,
    n               bigint NOT NULL,
    PRIMARY KEY (organization_id, date)
);
--bun:split
CREATE TABLE IF NOT EXISTS insights_daily_account_counts (
    organization_id text NOT NULL,
    account_id      text NOT NULL,
    date            date NOT NULL,
    n               bigint NOT NULL,
    PRIMARY KEY (organization_id, account_id, date)
);
--bun:split
-- Applies one statement's change: +1 per new row, −1 per old row, summed per
-- (organization, account, day); rows are upserted in key order so that
-- concurrent writers lock them in the same order.
CREATE OR REPLACE FUNCTION insights_daily_count() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
    src text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM insights_daily_counts;
        DELETE FROM insights_daily_account_counts;
        RETURN NULL;
    END IF;
    src := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT organization_id, account_id, date, 1 AS s FROM new_rows'
        WHEN 'DELETE' THEN 'SELECT organization_id, account_id, date, -1 AS s FROM old_rows'
        ELSE 'SELECT organization_id, account_id, date, 1 AS s FROM new_rows
              UNION ALL SELECT organization_id, account_id, date, -1 FROM old_rows'
    END;
    EXECUTE format($q$
        WITH d AS (
            SELECT organization_id, account_id, date, sum(s)::bigint AS n
            FROM (%s) AS r GROUP BY 1, 2, 3 HAVING sum(s) <> 0),
        a AS (
            INSERT INTO insights_daily_account_counts AS c (organization_id, account_id, date, n)
            SELECT organization_id, account_id, date, n FROM d ORDER BY 1, 2, 3
            ON CONFLICT (organization_id, account_id, date) DO UPDATE SET n = c.n + excluded.n)
        INSERT INTO insights_daily_counts AS c (organization_id, date, n)
        SELECT organization_id, date, sum(n)::bigint FROM d GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
        ON CONFLICT (organization_id, date) DO UPDATE SET n = c.n + excluded.n$q$, src);
    RETURN NULL;
END
$fn$;
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_count_insert AFTER INSERT ON insights_daily
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_count();
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_count_update AFTER UPDATE ON insights_daily
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_count();
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_count_delete AFTER DELETE ON insights_daily
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_count();
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_count_truncate AFTER TRUNCATE ON insights_daily
    FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_count();
--bun:split
ALTER TABLE insights_daily ENABLE ALWAYS TRIGGER insights_daily_count_insert,
    ENABLE ALWAYS TRIGGER insights_daily_count_update,
    ENABLE ALWAYS TRIGGER insights_daily_count_delete,
    ENABLE ALWAYS TRIGGER insights_daily_count_truncate;
--bun:split
-- The rows already there (the triggers above hold the table against writers
-- until this migration commits).
DELETE FROM insights_daily_counts;
--bun:split
DELETE FROM insights_daily_account_counts;
--bun:split
INSERT INTO insights_daily_account_counts (organization_id, account_id, date, n)
SELECT organization_id, account_id, date, count(*) FROM insights_daily GROUP BY 1, 2, 3;
--bun:split
INSERT INTO insights_daily_counts (organization_id, date, n)
SELECT organization_id, date, count(*) FROM insights_daily GROUP BY 1, 2;
