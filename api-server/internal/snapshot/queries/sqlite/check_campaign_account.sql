-- Staged campaigns whose account is neither staged nor stored (check.go).
SELECT s.ord, s.account_id FROM svc_import_campaigns s
LEFT JOIN (SELECT id, organization_id FROM svc_import_accounts
    UNION ALL SELECT id, organization_id FROM ad_accounts WHERE id NOT IN (SELECT id FROM svc_import_accounts)) a ON a.id = s.account_id
WHERE a.id IS NULL ORDER BY s.ord LIMIT ?0
