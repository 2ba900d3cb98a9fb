-- summary_names: postgres/summary_names.sql on SQLite: the ids come as JSON
-- arrays of strings.
-- ?1 organization, ?2 account ids, ?3 campaign ids (JSON arrays).
SELECT 'account' AS kind, id, account_name AS name,
       CASE WHEN is_active THEN 'ACTIVE' ELSE 'INACTIVE' END AS status
FROM ad_accounts
WHERE organization_id = ?1 AND id IN (SELECT value FROM json_each(?2))
UNION ALL
SELECT 'campaign' AS kind, id, name, status
FROM campaigns
WHERE organization_id = ?1 AND id IN (SELECT value FROM json_each(?3))
