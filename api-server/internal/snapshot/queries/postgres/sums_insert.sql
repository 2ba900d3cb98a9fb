-- The sums of the touched days computed again from their rows
-- (insights_daily_day_sums, migration 20261129110000), in key order.
INSERT INTO insights_daily_sums
SELECT s.* FROM svc_import_days AS k, LATERAL insights_daily_day_sums(k.organization_id, k.account_id, k.date) AS s
ORDER BY 1, 2, 3, 4, 5
