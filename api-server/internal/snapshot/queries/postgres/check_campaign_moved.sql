-- Staged campaigns stored under another organization than their account's (check.go).
SELECT s.ord, s.id FROM svc_import_campaigns s
JOIN (SELECT id, organization_id FROM svc_import_accounts
    UNION ALL SELECT id, organization_id FROM ad_accounts WHERE id NOT IN (SELECT id FROM svc_import_accounts)) a ON a.id = s.account_id
JOIN campaigns c ON c.id = s.id WHERE c.organization_id <> a.organization_id ORDER BY s.ord LIMIT ?0
