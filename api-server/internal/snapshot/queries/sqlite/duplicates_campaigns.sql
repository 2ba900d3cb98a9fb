-- Staged campaigns whose id an earlier element has: the element, its id and the first's ord (check.go).
SELECT s.ord, s.id, f.first FROM svc_import_campaigns s
JOIN (SELECT id, min(ord) AS first FROM svc_import_campaigns GROUP BY id HAVING count(*) > 1) f ON f.id = s.id
WHERE s.ord > f.first ORDER BY s.ord LIMIT ?0
