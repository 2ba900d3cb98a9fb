-- See postgres/account_copies_changed.sql: the staged accounts whose
-- platform id, currency or time zone the accounts' upsert changes, read
-- before it; account_copies_touched.sql and account_copies.sql read only
-- their rows. Dropped with the staging tables (dialect.go).
CREATE TEMP TABLE svc_import_copies AS
SELECT s.id FROM svc_import_accounts s JOIN ad_accounts a ON a.id = s.id
WHERE (a.platform_ad_account_id, a.currency, a.timezone) IS DISTINCT FROM (s.platform_ad_account_id, s.currency, s.timezone)
