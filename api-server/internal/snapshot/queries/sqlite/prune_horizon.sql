-- One batch of the change log's pruning on SQLite (prune.go), first
-- statement: each organization's horizon moves to just above the greatest
-- seq of the batch (at most ?1 entries recorded before ?0, oldest first);
-- prune.sql then deletes the batch, in the same transaction. ?2: now.
INSERT INTO insight_change_horizons (organization_id, pruned_below, pruned_at)
SELECT organization_id, max(seq) + 1, ?2 FROM (
    SELECT organization_id, seq FROM insight_changes WHERE recorded_at < ?0 ORDER BY seq LIMIT ?1)
WHERE true GROUP BY organization_id
ON CONFLICT (organization_id) DO UPDATE
SET pruned_below = max(insight_change_horizons.pruned_below, excluded.pruned_below), pruned_at = excluded.pruned_at
