-- The import transaction's settings (import.go): memory for its sorts and
-- hashes, so that grouping and ordering a batch of 100,000 rows stays in
-- memory (at the default 4MB the sums' sorts spilled to disk: 2 × 10 MB
-- of external merges at 100,000 rows). For this transaction only.
SET LOCAL work_mem = '64MB'
