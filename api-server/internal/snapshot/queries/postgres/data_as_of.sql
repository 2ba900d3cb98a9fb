-- The newest sync time among the organization's snapshot rows (merge.go:
-- recordDataAsOf), its insight rows' from the newest of each day's
-- (insights_daily_account_counts, which sums_insert.sql has just written;
-- migration 20261129150000). ?0: the organization.
SELECT MAX(t) AS t FROM (
    SELECT MAX(last_sync_at) AS t FROM ad_accounts WHERE organization_id = ?0
    UNION ALL SELECT MAX(synced_at) FROM campaigns WHERE organization_id = ?0
    UNION ALL SELECT MAX(synced_at) FROM insights_daily_account_counts WHERE organization_id = ?0) AS s
