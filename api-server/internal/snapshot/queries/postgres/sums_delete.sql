-- The sums of the touched days (svc_import_days), recomputed by sums_insert.sql.
DELETE FROM insights_daily_sums s USING svc_import_days k
WHERE s.organization_id = k.organization_id AND s.account_id = k.account_id AND s.date = k.date
