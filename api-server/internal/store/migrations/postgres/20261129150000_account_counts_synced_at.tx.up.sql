-- The newest sync time of each (organization, account, day)'s insight rows,
-- kept beside their count (issue 45). An organization's dataAsOf is the
-- newest sync time among its snapshot rows (DESIGN §4); the import read it
-- from every insight row of each organization it touched (115 ms an
-- organization of 50,000 rows, 2.3 s of a 1,000,000-row import into 20),
-- and now reads the organization's days (snapshot/queries/postgres/
-- data_as_of.sql). The import writes it with the counts of the days it
-- touched (sums_insert.sql), the refresh below for every day; NULL on a day
-- without rows.
ALTER TABLE insights_daily_account_counts ADD COLUMN IF NOT EXISTS synced_at timestamptz;

UPDATE insights_daily_account_counts AS c SET synced_at = m.synced_at
FROM (SELECT organization_id, account_id, date, max(synced_at) AS synced_at
      FROM insights_daily GROUP BY 1, 2, 3) AS m
WHERE m.organization_id = c.organization_id AND m.account_id = c.account_id AND m.date = c.date
  AND c.synced_at IS DISTINCT FROM m.synced_at;

CREATE OR REPLACE FUNCTION insights_daily_aggregates_refresh() RETURNS void LANGUAGE sql AS $fn$
    DELETE FROM insights_daily_sums;
    DELETE FROM insights_daily_account_counts;
    DELETE FROM insights_daily_counts;
    INSERT INTO insights_daily_account_counts (organization_id, account_id, date, n, synced_at)
    SELECT organization_id, account_id, date, count(*), max(synced_at) FROM insights_daily GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
    INSERT INTO insights_daily_counts (organization_id, date, n)
    SELECT organization_id, date, sum(n)::bigint FROM insights_daily_account_counts GROUP BY 1, 2 ORDER BY 1, 2;
    INSERT INTO insights_daily_sums
    SELECT s.* FROM insights_daily_account_counts AS c,
        LATERAL insights_daily_day_sums(c.organization_id, c.account_id, c.date) AS s ORDER BY 1, 2, 3, 4, 5;
$fn$;
