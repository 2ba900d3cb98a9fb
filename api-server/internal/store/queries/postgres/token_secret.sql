-- token_secret: the HMAC key of the changes feed's tokens that the
-- migration 20261129140000_changes_feed generated (serve without
-- --token-secret).
SELECT secret FROM api_secrets WHERE name = 'sync_tokens'
