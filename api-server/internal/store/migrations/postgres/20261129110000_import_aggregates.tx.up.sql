-- The per-day counts (migration 20261121140000) and sums (20261126150000)
-- of insights_daily are no longer kept by delta triggers: the import
-- recomputes, from the rows, the (organization, account, day) keys its
-- change log says it touched (internal/snapshot/queries/postgres/
-- aggregates_*.sql; issue 45), in its own transaction, in plain SQL. A
-- writer of insights_daily other than the import (a test, the bench
-- generator) calls insights_daily_aggregates_refresh() after writing.
DROP TRIGGER IF EXISTS insights_daily_sum_insert ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_sum_update ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_sum_delete ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_sum_truncate ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_count_insert ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_count_update ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_count_delete ON insights_daily;
--bun:split
DROP TRIGGER IF EXISTS insights_daily_count_truncate ON insights_daily;
--bun:split
DROP FUNCTION IF EXISTS insights_daily_sum();
--bun:split
DROP FUNCTION IF EXISTS insights_daily_sums_delta(text);
--bun:split
DROP FUNCTION IF EXISTS insights_daily_sums_of(text);
--bun:split
DROP FUNCTION IF EXISTS insights_daily_count();
--bun:split
-- The day counts of the days an import touched are the sums of their
-- accounts' counts, found by (organization, day).
CREATE INDEX IF NOT EXISTS insights_daily_account_counts_org_date_idx ON insights_daily_account_counts (organization_id, date);
--bun:split
-- The one definition of a sum: the rows of insights_daily_sums of one
-- (organization, account, day), one per campaign (campaign_key '' for
-- account-level rows) and currency, each the exact sum of its rows (numeric
-- for spend, purchases and purchase values, a float8 taken as its numeric
-- cast; counts beside the purchase sums; NULL where no row has evidence).
-- A plain SQL function, inlined by the planner into a LATERAL join.
CREATE OR REPLACE FUNCTION insights_daily_day_sums(org text, account text, day date)
RETURNS SETOF insights_daily_sums LANGUAGE sql STABLE AS $fn$
    SELECT organization_id, account_id, coalesce(campaign_id, ''), date, currency,
        count(*), sum(spend), sum(impressions)::bigint, sum(clicks)::bigint,
        count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL),
        sum(purchases::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL),
        count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL),
        sum(purchase_value::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL),
        sum(spend) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL)
    FROM insights_daily
    WHERE organization_id = org AND account_id = account AND date = day
    GROUP BY organization_id, account_id, coalesce(campaign_id, ''), date, currency
$fn$;
--bun:split
-- Every count and sum computed again from the rows, in key order (an
-- organization's rows stay together): for writers of insights_daily other
-- than the import, and for this migration.
CREATE OR REPLACE FUNCTION insights_daily_aggregates_refresh() RETURNS void LANGUAGE sql AS $fn$
    DELETE FROM insights_daily_sums;
    DELETE FROM insights_daily_account_counts;
    DELETE FROM insights_daily_counts;
    INSERT INTO insights_daily_account_counts (organization_id, account_id, date, n)
    SELECT organization_id, account_id, date, count(*) FROM insights_daily GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
    INSERT INTO insights_daily_counts (organization_id, date, n)
    SELECT organization_id, date, sum(n)::bigint FROM insights_daily_account_counts GROUP BY 1, 2 ORDER BY 1, 2;
    INSERT INTO insights_daily_sums
    SELECT s.* FROM insights_daily_account_counts AS c,
        LATERAL insights_daily_day_sums(c.organization_id, c.account_id, c.date) AS s ORDER BY 1, 2, 3, 4, 5;
$fn$;
--bun:split
-- The rows already there: the triggers kept them exact; computed again,
-- which also drops the keys whose rows are gone (n = 0).
SELECT insights_daily_aggregates_refresh();
