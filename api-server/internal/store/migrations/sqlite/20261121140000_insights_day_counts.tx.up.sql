-- PostgreSQL only: its migration of the same name adds per-day row counts of
-- insights_daily that position deep insights pages. SQLite reads pages with
-- LIMIT/OFFSET and keeps no counts; this file keeps the two migration sets
-- in step.
SELECT 1;
