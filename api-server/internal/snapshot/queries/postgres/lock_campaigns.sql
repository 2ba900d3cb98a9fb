-- Locks the referenced campaigns (fkrelax.go) FOR KEY SHARE, the lock the
-- foreign-key triggers would take, in id order. ?0: a list of ids.
SELECT 1 FROM campaigns WHERE id IN (?0) ORDER BY id FOR KEY SHARE
