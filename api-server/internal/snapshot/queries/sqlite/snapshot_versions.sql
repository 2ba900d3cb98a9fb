-- Each (organization, resource) that svc_import_versions holds advances its
-- version by one (the first import of one starts it at 1).
INSERT INTO snapshot_versions (organization_id, resource, version)
SELECT DISTINCT organization_id, resource, 1 FROM svc_import_versions WHERE true ORDER BY 1, 2
ON CONFLICT (organization_id, resource) DO UPDATE SET version = snapshot_versions.version + 1
