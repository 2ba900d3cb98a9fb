-- One pass over the staged insights (check.go): the account, and the
-- campaign (staged first, stored otherwise) and its account.
SELECT s.ord, s.account_id, s.campaign_id, CASE WHEN a.id IS NULL THEN 'missing' END, c.account_id, c.staged
FROM svc_import_insights s
LEFT JOIN (SELECT id, organization_id FROM svc_import_accounts
    UNION ALL SELECT id, organization_id FROM ad_accounts WHERE id NOT IN (SELECT id FROM svc_import_accounts)) a ON a.id = s.account_id
LEFT JOIN (SELECT id, account_id, 'staged' AS staged FROM svc_import_campaigns
    UNION ALL SELECT id, account_id, NULL FROM campaigns WHERE id NOT IN (SELECT id FROM svc_import_campaigns)) c
    ON c.id = s.campaign_id
WHERE a.id IS NULL OR (s.campaign_id IS NOT NULL AND (c.id IS NULL OR c.account_id <> s.account_id))
ORDER BY s.ord LIMIT ?0
