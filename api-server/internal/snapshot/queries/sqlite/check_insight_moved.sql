-- Staged insights stored under another organization than their account's (check.go).
SELECT s.ord, s.id FROM svc_import_insights s
JOIN (SELECT id, organization_id FROM svc_import_accounts
    UNION ALL SELECT id, organization_id FROM ad_accounts WHERE id NOT IN (SELECT id FROM svc_import_accounts)) a ON a.id = s.account_id
JOIN insights_daily d ON d.id = s.id WHERE d.organization_id <> a.organization_id ORDER BY s.ord LIMIT ?0
