-- Raised by insights_merge.sql for a row that would change organization;
-- the checks then name the elements (postgres.go).
CREATE OR REPLACE FUNCTION pg_temp.svc_import_moved(id text) RETURNS boolean
LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'row % would move to another organization', id USING ERRCODE = 'SVC01'; END $f$
