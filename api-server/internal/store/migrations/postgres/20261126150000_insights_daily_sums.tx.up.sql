-- Exact sums of insights_daily per organization, account, campaign
-- (campaign_key: '' for account-level rows), day and currency, so that
-- GET /insights/summary adds at most one row per campaign and day instead
-- of every row (internal/store/queries/postgres/summary.sql; issue 34).
-- Every figure is the exact sum of the rows of its key: numeric for spend,
-- purchases and purchase values (a float8 taken as its numeric cast, C's
-- %.15g), counts beside the purchase sums, NULL where no row of the key has
-- evidence. Kept by statement-level triggers in the writing statement's
-- transaction, as the day counts are (migration 20261121140000): every
-- INSERT (COPY, INSERT … ON CONFLICT), UPDATE and DELETE (cascades
-- included) adds its change; TRUNCATE empties the table. ENABLE ALWAYS:
-- they also fire under session_replication_role = replica.
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
-- The change a statement makes to the sums: src has insights_daily's
-- columns and s, +1 for a new row and -1 for an old one.
CREATE OR REPLACE FUNCTION insights_daily_sums_delta(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
SELECT format($q$
    SELECT organization_id, account_id, coalesce(campaign_id, '') AS campaign_key, date, currency,
        sum(s)::bigint AS n, sum(s * spend) AS spend,
        sum(s * impressions)::bigint AS impressions, sum(s * clicks)::bigint AS clicks,
        coalesce(sum(s) FILTER (WHERE e_p), 0)::bigint AS purchase_rows,
        sum(s * purchases::numeric) FILTER (WHERE e_p) AS purchases,
        coalesce(sum(s) FILTER (WHERE e_v), 0)::bigint AS purchase_value_rows,
        sum(s * purchase_value::numeric) FILTER (WHERE e_v) AS purchase_value,
        sum(s * spend) FILTER (WHERE e_v) AS value_spend
    FROM (SELECT *, purchase_measurement <> 'unavailable' AND purchases IS NOT NULL AS e_p,
                    purchase_measurement <> 'unavailable' AND purchase_value IS NOT NULL AS e_v
          FROM (%s) AS r0) AS r
    GROUP BY 1, 2, 3, 4, 5$q$, src)
$fn$;
--bun:split
-- The trigger adds each statement's change (its new rows, less its old
-- ones) to the sums, in key order (concurrent writers lock the rows of
-- insights_daily_sums in the same order), as the day counts do: safe with
-- concurrent writers, and exact in value. A key whose rows are all gone
-- keeps a row with n = 0, which the summary skips and a later row starts
-- afresh. An UPDATE or DELETE can leave a sum with more decimal places than
-- the rows it still holds (2.125 − 0.125 = 2.000): the sums of the keys it
-- took rows from are then rounded to the most decimal places of their rows,
-- which changes no value.
CREATE OR REPLACE FUNCTION insights_daily_sum() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM insights_daily_sums;
        RETURN NULL;
    END IF;
    EXECUTE format($q$
        INSERT INTO insights_daily_sums AS s (organization_id, account_id, campaign_key, date, currency, n, spend,
            impressions, clicks, purchase_rows, purchases, purchase_value_rows, purchase_value, value_spend)
        SELECT * FROM (%s) AS d ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (organization_id, account_id, campaign_key, date, currency) DO UPDATE SET
            n = s.n + excluded.n,
            spend = CASE WHEN s.n = 0 THEN excluded.spend ELSE s.spend + excluded.spend END,
            impressions = s.impressions + excluded.impressions, clicks = s.clicks + excluded.clicks,
            purchase_rows = s.purchase_rows + excluded.purchase_rows,
            purchases = CASE WHEN s.purchase_rows + excluded.purchase_rows = 0 THEN NULL
                ELSE coalesce(s.purchases, 0) + coalesce(excluded.purchases, 0) END,
            purchase_value_rows = s.purchase_value_rows + excluded.purchase_value_rows,
            purchase_value = CASE WHEN s.purchase_value_rows + excluded.purchase_value_rows = 0 THEN NULL
                ELSE coalesce(s.purchase_value, 0) + coalesce(excluded.purchase_value, 0) END,
            value_spend = CASE WHEN s.purchase_value_rows + excluded.purchase_value_rows = 0 THEN NULL
                ELSE coalesce(s.value_spend, 0) + coalesce(excluded.value_spend, 0) END$q$,
        insights_daily_sums_delta(CASE TG_OP
            WHEN 'INSERT' THEN 'SELECT *, 1 AS s FROM new_rows'
            WHEN 'DELETE' THEN 'SELECT *, -1 AS s FROM old_rows'
            ELSE 'SELECT *, 1 AS s FROM new_rows UNION ALL SELECT *, -1 AS s FROM old_rows' END));
    IF TG_OP = 'INSERT' THEN
        RETURN NULL;
    END IF;
    UPDATE insights_daily_sums AS s SET
        spend = round(s.spend, m.spend_scale), purchases = round(s.purchases, m.purchases_scale),
        purchase_value = round(s.purchase_value, m.value_scale), value_spend = round(s.value_spend, m.value_spend_scale)
    FROM (
        SELECT i.organization_id, i.account_id, coalesce(i.campaign_id, '') AS campaign_key, i.date, i.currency,
            max(scale(i.spend)) AS spend_scale,
            max(scale(i.purchases::numeric)) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchases IS NOT NULL) AS purchases_scale,
            max(scale(i.purchase_value::numeric)) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS value_scale,
            max(scale(i.spend)) FILTER (WHERE i.purchase_measurement <> 'unavailable' AND i.purchase_value IS NOT NULL) AS value_spend_scale
        FROM insights_daily AS i
        JOIN (SELECT DISTINCT organization_id, account_id, coalesce(campaign_id, '') AS campaign_key, date FROM old_rows) AS k
          ON i.organization_id = k.organization_id AND i.account_id = k.account_id
         AND coalesce(i.campaign_id, '') = k.campaign_key AND i.date = k.date
        GROUP BY 1, 2, 3, 4, 5) AS m
    WHERE s.organization_id = m.organization_id AND s.account_id = m.account_id
      AND s.campaign_key = m.campaign_key AND s.date = m.date AND s.currency = m.currency;
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
