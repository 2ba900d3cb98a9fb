-- The change log (CONTRACT-45: insight_changes): one entry per insight row
-- this import wrote or removed, at its day after the write (for a removal,
-- the removed row's). txid and seq are the table's defaults.
INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
SELECT organization_id, insight_id, account_id, date, kind FROM svc_import_touched ORDER BY n
