-- The stored rows of the complete windows that the document does not
-- carry, removed and recorded as removals at their day (stage 3).
WITH del AS (
    DELETE FROM insights_daily d USING svc_import_complete w
    WHERE d.account_id = w.account_id AND d.date BETWEEN w.date_from AND w.date_to
      AND NOT EXISTS (SELECT 1 FROM svc_import_insights s WHERE s.id = d.id)
    RETURNING d.id, d.organization_id, d.account_id, d.date)
INSERT INTO svc_import_touched (insight_id, organization_id, account_id, date, old_account_id, old_date, kind, stage)
SELECT DISTINCT id, organization_id, account_id, date, account_id, date, 'delete', 3 FROM del
