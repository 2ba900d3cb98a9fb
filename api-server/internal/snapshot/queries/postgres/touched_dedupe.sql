-- A row that an account's copies (stage 1) wrote and that the upsert or a
-- window then wrote or removed keeps that later record only (its day is the
-- same in both).
DELETE FROM svc_import_touched WHERE stage = 1 AND insight_id IN (SELECT insight_id FROM svc_import_touched WHERE stage <> 1)
