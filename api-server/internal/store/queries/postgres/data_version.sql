-- data_version: the organization's data version (store/tagcache.go), the id
-- of its newest import record (insight_imports). Every import that changes
-- anything a tag covers (a day's version, the accounts' or campaigns'
-- version, the data time) writes the record in the same transaction, under
-- the organization's import lock, so the id grows in commit order: while it
-- is the same, so is every page's tag material. NULL before any import.
-- $1 organization.
SELECT (SELECT max(id) FROM insight_imports WHERE organization_id = $1) AS data_version
