-- See prune_horizon.sql: the batch deleted. ?0, ?1: as there.
DELETE FROM insight_changes WHERE seq IN (
    SELECT seq FROM insight_changes WHERE recorded_at < ?0 ORDER BY seq LIMIT ?1)
