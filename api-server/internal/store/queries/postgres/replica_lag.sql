-- replica_lag: whether the server is a replica (in recovery) and how far it
-- is behind, in seconds: 0 when it has replayed all it received, else the
-- age of the last transaction it replayed (Routed's health check, on each
-- replica; on a primary the first column is false). "All it received" is
-- replay >= receive, not equality: after a restart the receive position is
-- the start of the WAL segment streaming resumed from, behind the replay
-- position until the primary writes again, and an idle, caught-up replica
-- must not count as lagging by the age of its last transaction (issue 36).
SELECT
    pg_is_in_recovery() AS in_recovery,
    CASE WHEN pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn() THEN 0
         ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)
    END AS lag_seconds
