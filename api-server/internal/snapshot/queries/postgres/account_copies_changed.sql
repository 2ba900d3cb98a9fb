-- The staged accounts whose platform id, currency or time zone the
-- accounts' upsert (accounts_merge.sql, run next) changes: read before it
-- writes them. Every insight row the merge writes takes its account's
-- values, so only these accounts can have stored rows that account_copies.sql
-- must rewrite; it reads their rows alone instead of every row of every
-- staged account (2.0 s of a fresh 1,000,000-row import and of its
-- unchanged re-import, to rewrite none). SQLite does the same.
CREATE TEMP TABLE svc_import_copies ON COMMIT DROP AS
SELECT s.id FROM svc_import_accounts s JOIN ad_accounts a ON a.id = s.id
WHERE (a.platform_ad_account_id, a.currency, a.timezone) IS DISTINCT FROM (s.platform_ad_account_id, s.currency, s.timezone)
