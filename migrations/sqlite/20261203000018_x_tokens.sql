-- X OAuth 2.0 refresh: each account's refresh token, encrypted like its
-- access token (same key, its own nonce), when the access token expires,
-- and why its posts are paused (a failed refresh: a code, never a sentence;
-- cleared when the team connects the account again). Keep in step with
-- ../postgres/.
ALTER TABLE x_accounts ADD COLUMN refresh_nonce BLOB;
ALTER TABLE x_accounts ADD COLUMN refresh_ciphertext BLOB;
ALTER TABLE x_accounts ADD COLUMN expires_at INTEGER;
ALTER TABLE x_accounts ADD COLUMN paused TEXT;
