-- PostgreSQL only: its migration of the same name adds exact per-day sums of
-- insights_daily that GET /insights/summary reads. SQLite stores decimals as
-- text and sums the rows in Go (internal/store/summary.go); this file keeps
-- the two migration sets in step.
SELECT 1;
