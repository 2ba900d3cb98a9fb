-- The newest sync time among the organization's snapshot rows (merge.go:
-- recordDataAsOf). ?0: the organization.
SELECT MAX(t) AS t FROM (
    SELECT MAX(last_sync_at) AS t FROM ad_accounts WHERE organization_id = ?0
    UNION ALL SELECT MAX(synced_at) FROM campaigns WHERE organization_id = ?0
    UNION ALL SELECT MAX(synced_at) FROM insights_daily WHERE organization_id = ?0) AS s
