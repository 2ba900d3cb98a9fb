-- See the PostgreSQL migration of the same name: SQLite keeps no per-day
-- counts (its import reads an organization's newest sync time from the
-- rows), so there is nothing to change here.
SELECT 1;
