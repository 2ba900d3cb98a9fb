-- One import at a time writes an organization's rows (merge.go): the
-- counts and sums it recomputes from the rows then include every committed
-- write. Taken in organization order; released at commit. ?0: the organization.
SELECT pg_advisory_xact_lock(hashtextextended('svc_import ' || ?0, 0))
