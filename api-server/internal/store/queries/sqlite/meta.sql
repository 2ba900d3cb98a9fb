-- meta: the organization's snapshot time and, as account_found, 1 (no
-- account asked for). Read before each page (read_sqlite.go).
-- ?1 organization.
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = ?1) AS data_as_of,
    1 AS account_found
