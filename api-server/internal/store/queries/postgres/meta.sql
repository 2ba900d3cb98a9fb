-- meta: the organization's snapshot time, as account_found 1 (no account
-- asked for), and the organization's key-state epoch (key_epoch: the
-- column of keys-admin's contract, keys-admin/keys/pending.go; NULL when
-- it has none). The leading columns of every page statement, read alone
-- for an empty page, whose statement returned no row to carry them, and by
-- Routed on the primary before a page read on a replica (read_pg.go,
-- prelude.go).
-- $1 organization.
SELECT
    (SELECT data_as_of FROM organization_snapshots WHERE organization_id = $1) AS data_as_of,
    1::bigint AS account_found,
    (SELECT epoch FROM key_state_epochs WHERE organization_id = $1) AS key_epoch,
    (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version
