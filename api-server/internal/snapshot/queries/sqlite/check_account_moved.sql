-- Staged accounts stored under another organization (check.go).
SELECT s.ord, s.id FROM svc_import_accounts s JOIN ad_accounts a ON a.id = s.id
WHERE a.organization_id <> s.organization_id ORDER BY s.ord LIMIT ?0
