-- The changes feed's reads (DESIGN §4b, issue 42); the change log itself is
-- 20261129100000_change_log (issue 45's contract, unchanged here).
--
-- insight_changes_insight_idx: the feed sends an entry only when it is the
-- newest entry of its row (no entry of the same insight_id after it, in
-- this window or a later one): one probe of this index per entry
-- (changes.sql); the first sync leaves out the rows changed since its
-- watermark with the same probe (changes_first.sql).
CREATE INDEX IF NOT EXISTS insight_changes_insight_idx ON insight_changes (organization_id, insight_id, txid, seq);
--bun:split
-- api_secrets: secrets the service generates once and every replica of it
-- shares (they live in the database it reads). sync_tokens is the HMAC key
-- of the changes feed's sync tokens and cursors when serve is given no
-- --token-secret: it makes them tamper-evident (their organization binding
-- is the MAC over the requesting organization; no token ever reaches
-- another organization's rows whatever the secret).
CREATE TABLE IF NOT EXISTS api_secrets (
    name   text PRIMARY KEY,
    secret text NOT NULL
);
--bun:split
INSERT INTO api_secrets (name, secret)
VALUES ('sync_tokens', encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || clock_timestamp()::text, 'UTF8')), 'hex'))
ON CONFLICT (name) DO NOTHING;
