-- summary_names: the names and statuses of the groups of GET
-- /insights/summary by account or campaign (issue 46): the organization's
-- accounts among $2 (status ACTIVE or INACTIVE, from is_active) and its
-- campaigns among $3 (their status as stored), each row kind ('account' or
-- 'campaign'), id, name, status. Only the ids of the groups are asked for,
-- so that the read is index lookups, whatever the organization's size.
-- $1 organization, $2 account ids, $3 campaign ids (text[]).
-- Index: ad_accounts_org_id_idx, campaigns_org_id_idx (organization_id, id).
SELECT 'account' AS kind, id, account_name AS name,
       CASE WHEN is_active THEN 'ACTIVE' ELSE 'INACTIVE' END AS status
FROM ad_accounts
WHERE organization_id = $1 AND id = ANY ($2::text[])
UNION ALL
SELECT 'campaign' AS kind, id, name, status
FROM campaigns
WHERE organization_id = $1 AND id = ANY ($3::text[])
