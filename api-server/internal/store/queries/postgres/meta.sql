-- meta: the organization's snapshot time and, as account_found, 1 (no
-- account asked for). The meta of an empty page, whose statement returned
-- no row to carry it (read_pg.go).
-- $1 organization.
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found
