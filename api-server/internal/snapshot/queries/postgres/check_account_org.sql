-- Staged accounts whose organization is neither staged nor stored (check.go).
SELECT s.ord, s.organization_id FROM svc_import_accounts s
WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.organization_id) ORDER BY s.ord LIMIT ?0
