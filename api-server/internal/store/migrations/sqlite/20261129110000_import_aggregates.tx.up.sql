-- PostgreSQL only: its migration of the same name replaces the delta
-- triggers of the per-day counts and sums by the import's recomputation.
-- SQLite keeps neither; this file keeps the two migration sets in step.
SELECT 1;
