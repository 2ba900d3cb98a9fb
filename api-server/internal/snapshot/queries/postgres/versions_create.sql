-- The organizations and resources ('accounts', 'campaigns') whose returned
-- values this import changed (changes.go), a row per statement that did.
CREATE TEMP TABLE svc_import_versions (organization_id text NOT NULL, resource text NOT NULL) ON COMMIT DROP
