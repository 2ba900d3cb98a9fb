-- Exact sums of insights_daily per organization, account, campaign
-- (campaign_key: '' for account-level rows), day and currency, so that
-- GET /insights/summary adds at most one row per campaign and day instead
-- of every row (internal/store/queries/postgres/summary.sql; issue 34).
-- Every figure is the exact sum of the rows of its key: numeric for spend,
-- purchases and purchase values (a float8 taken as its numeric cast, C's
-- %.15g), counts beside the purchase sums, NULL where no row of the key has
-- evidence. Kept by statement-level triggers in the writing statement's
-- transaction, as the day counts are (migration 20261121140000): an INSERT
-- (COPY, INSERT … ON CONFLICT's inserted rows) adds its rows' sums; an
-- UPDATE or DELETE (cascades included) computes the sums of every key it
-- touched again from the table, so that a sum is always written with the
-- decimal places of the rows it holds now; TRUNCATE empties the table. ENABLE
-- ALWAYS: they also fire under session_replication_role = replica.
CREATE TABLE IF NOT EXISTS insights_daily_sums (
    organization_id     text NOT NULL,
    account_id          text NOT NULL,
    campaign_key        text NOT NULL,
    date                date NOT NULL,
    currency            text NOT NULL,
    n                   bigint NOT NULL,
    spend               numeric NOT NULL,
    impressions         bigint NOT NULL,
    clicks              bigint NOT NULL,
    purchase_rows       bigint NOT NULL,
    purchases           numeric,
    purchase_value_rows bigint NOT NULL,
    purchase_value      numeric,
    value_spend         numeric,
    PRIMARY KEY (organization_id, account_id, campaign_key, date, currency)
);
--bun:split
CREATE INDEX IF NOT EXISTS insights_daily_sums_org_date_idx ON insights_daily_sums (organization_id, date);
--bun:split
-- The sums of the rows of src (a relation with insights_daily's columns),
-- grouped by the key of insights_daily_sums: the one definition of a sum,
-- used by the triggers and the backfill below.
CREATE OR REPLACE FUNCTION insights_daily_sums_of(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
SELECT format($q$
    SELECT organization_id, account_id, coalesce(campaign_id, '') AS campaign_key, date, currency,
        count(*) AS n, sum(spend) AS spend, sum(impressions)::bigint AS impressions, sum(clicks)::bigint AS clicks,
        count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchase_rows,
        sum(purchases::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchases IS NOT NULL) AS purchases,
        count(*) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value_rows,
        sum(purchase_value::numeric) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS purchase_value,
        sum(spend) FILTER (WHERE purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL) AS value_spend
    FROM %s GROUP BY 1, 2, 3, 4, 5$q$, src)
$fn$;
--bun:split
CREATE OR REPLACE FUNCTION insights_daily_sum() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
    keys text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM insights_daily_sums;
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        -- Added to the sums, in key order (concurrent writers lock rows in
        -- the same order). A NULL purchase sum plus a sum is the sum.
        EXECUTE format($q$
            INSERT INTO insights_daily_sums AS s (organization_id, account_id, campaign_key, date, currency, n, spend,
                impressions, clicks, purchase_rows, purchases, purchase_value_rows, purchase_value, value_spend)
            SELECT * FROM (%s) AS d ORDER BY 1, 2, 3, 4, 5
            ON CONFLICT (organization_id, account_id, campaign_key, date, currency) DO UPDATE SET
                n = s.n + excluded.n, spend = s.spend + excluded.spend,
                impressions = s.impressions + excluded.impressions, clicks = s.clicks + excluded.clicks,
                purchase_rows = s.purchase_rows + excluded.purchase_rows,
                purchases = CASE WHEN s.purchases IS NULL THEN excluded.purchases
                    WHEN excluded.purchases IS NULL THEN s.purchases ELSE s.purchases + excluded.purchases END,
                purchase_value_rows = s.purchase_value_rows + excluded.purchase_value_rows,
                purchase_value = CASE WHEN s.purchase_value IS NULL THEN excluded.purchase_value
                    WHEN excluded.purchase_value IS NULL THEN s.purchase_value ELSE s.purchase_value + excluded.purchase_value END,
                value_spend = CASE WHEN s.value_spend IS NULL THEN excluded.value_spend
                    WHEN excluded.value_spend IS NULL THEN s.value_spend ELSE s.value_spend + excluded.value_spend END$q$,
            insights_daily_sums_of('new_rows'));
        RETURN NULL;
    END IF;
    -- UPDATE, DELETE: every key the statement touched, summed again from the
    -- table as it is now.
    keys := format('(SELECT DISTINCT organization_id, account_id, coalesce(campaign_id, '''') AS campaign_key, date FROM (%s) AS r) AS k',
        CASE TG_OP WHEN 'DELETE' THEN 'SELECT * FROM old_rows'
            ELSE 'SELECT * FROM old_rows UNION ALL SELECT * FROM new_rows' END);
    EXECUTE format($q$
        DELETE FROM insights_daily_sums AS s USING %s
        WHERE s.organization_id = k.organization_id AND s.account_id = k.account_id
          AND s.campaign_key = k.campaign_key AND s.date = k.date$q$, keys);
    EXECUTE format($q$
        INSERT INTO insights_daily_sums (organization_id, account_id, campaign_key, date, currency, n, spend,
            impressions, clicks, purchase_rows, purchases, purchase_value_rows, purchase_value, value_spend)
        SELECT * FROM (%s) AS d ORDER BY 1, 2, 3, 4, 5$q$,
        insights_daily_sums_of(format('(SELECT i.* FROM insights_daily AS i JOIN %s
            ON i.organization_id = k.organization_id AND i.account_id = k.account_id
            AND coalesce(i.campaign_id, '''') = k.campaign_key AND i.date = k.date) AS touched', keys)));
    RETURN NULL;
END
$fn$;
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_sum_insert AFTER INSERT ON insights_daily
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_sum();
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_sum_update AFTER UPDATE ON insights_daily
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_sum();
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_sum_delete AFTER DELETE ON insights_daily
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_sum();
--bun:split
CREATE OR REPLACE TRIGGER insights_daily_sum_truncate AFTER TRUNCATE ON insights_daily
    FOR EACH STATEMENT EXECUTE FUNCTION insights_daily_sum();
--bun:split
ALTER TABLE insights_daily ENABLE ALWAYS TRIGGER insights_daily_sum_insert,
    ENABLE ALWAYS TRIGGER insights_daily_sum_update,
    ENABLE ALWAYS TRIGGER insights_daily_sum_delete,
    ENABLE ALWAYS TRIGGER insights_daily_sum_truncate;
--bun:split
-- The rows already there (the triggers above hold the table against writers
-- until this migration commits).
DELETE FROM insights_daily_sums;
--bun:split
DO $do$
BEGIN
    EXECUTE format($q$
        INSERT INTO insights_daily_sums (organization_id, account_id, campaign_key, date, currency, n, spend,
            impressions, clicks, purchase_rows, purchases, purchase_value_rows, purchase_value, value_spend)
        %s$q$, insights_daily_sums_of('insights_daily'));
END
$do$;
