-- One batch of the change log's pruning (prune.go): at most ?1 entries
-- recorded before ?0 (oldest first; entries an import is deleting too are
-- skipped, never waited for) are deleted, and each organization's horizon
-- (CONTRACT-45: insight_change_horizons) moves to just above the greatest
-- txid deleted: a token below it may have lost entries. The horizon never
-- moves back. Returns the number deleted. Imports and readers take no lock
-- that this waits for or holds.
WITH victims AS (
    SELECT organization_id, txid, seq FROM insight_changes WHERE recorded_at < ?0
    ORDER BY recorded_at LIMIT ?1 FOR UPDATE SKIP LOCKED),
del AS (
    DELETE FROM insight_changes c USING victims v
    WHERE c.organization_id = v.organization_id AND c.txid = v.txid AND c.seq = v.seq
    RETURNING c.organization_id, c.txid),
horizon AS (
    INSERT INTO insight_change_horizons AS h (organization_id, pruned_below, pruned_at)
    SELECT organization_id, (max(txid::text::bigint) + 1)::text::xid8, now() FROM del GROUP BY organization_id
    ON CONFLICT (organization_id) DO UPDATE
    SET pruned_below = greatest(h.pruned_below, excluded.pruned_below), pruned_at = excluded.pruned_at)
SELECT count(*) FROM del
