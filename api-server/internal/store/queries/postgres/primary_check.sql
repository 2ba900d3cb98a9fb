-- primary_check: whether the server a connection of the primary's pool is
-- on can act as the primary: not a standby (in recovery: a demoted or
-- not yet promoted server) and not read-only (transaction_read_only, on
-- when an operator fences an old primary with default_transaction_read_only).
-- CheckPrimary runs it on the pool's connections (issue 36).
SELECT
    pg_is_in_recovery() AS in_recovery,
    current_setting('transaction_read_only') = 'on' AS read_only
