-- See postgres/versions_create.sql.
CREATE TEMP TABLE svc_import_versions (organization_id TEXT NOT NULL, resource TEXT NOT NULL)
