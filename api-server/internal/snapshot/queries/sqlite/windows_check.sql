-- The complete windows (windows.go) whose account is unknown (no
-- organization) or belongs to an organization that the document neither
-- lists (?0, a list) nor carries accounts of; at most ?1 rows.
SELECT w.ord, w.account_id, a.organization_id
FROM svc_import_complete w
LEFT JOIN (SELECT id, organization_id FROM svc_import_accounts
    UNION ALL SELECT id, organization_id FROM ad_accounts WHERE id NOT IN (SELECT id FROM svc_import_accounts)) a
    ON a.id = w.account_id
WHERE a.id IS NULL
   OR (a.organization_id NOT IN (?0) AND a.organization_id NOT IN (SELECT organization_id FROM svc_import_accounts))
ORDER BY w.ord LIMIT ?1
