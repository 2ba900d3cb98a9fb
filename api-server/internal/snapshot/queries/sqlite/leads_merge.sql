-- See postgres/leads_merge.sql. ?0: the import time.
INSERT INTO lead_contacts AS d (id, account_id, email, phone, organization_id, updated_at)
SELECT s.id, s.account_id, s.email, s.phone, a.organization_id, ?0
FROM svc_import_leadcontacts s JOIN ad_accounts a ON a.id = s.account_id WHERE true
ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, email = excluded.email, phone = excluded.phone,
    updated_at = excluded.updated_at
WHERE (d.account_id, d.email, d.phone) IS DISTINCT FROM (excluded.account_id, excluded.email, excluded.phone)
