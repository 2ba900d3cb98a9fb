-- The stored rows of the complete windows that the document does not
-- carry, removed and logged as removals at their day.
WITH del AS (
    DELETE FROM insights_daily d USING svc_import_complete w
    WHERE d.account_id = w.account_id AND d.date BETWEEN w.date_from AND w.date_to
      AND NOT EXISTS (SELECT 1 FROM svc_import_insights s WHERE s.id = d.id)
    RETURNING d.id, d.organization_id, d.account_id, d.date),
log AS (
    INSERT INTO insight_changes (organization_id, insight_id, account_id, date, kind)
    SELECT DISTINCT organization_id, id, account_id, date, 'delete' FROM del)
INSERT INTO svc_import_days (organization_id, account_id, date)
SELECT DISTINCT organization_id, account_id, date FROM del
ON CONFLICT DO NOTHING
