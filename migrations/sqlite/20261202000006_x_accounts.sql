-- X accounts the team connected: each OAuth 2.0 user token encrypted with
-- the key from settings (x.token_key), and the last mention read.
CREATE TABLE x_accounts (
    name                TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL,
    token_nonce         BLOB NOT NULL,
    token_ciphertext    BLOB NOT NULL,
    last_mention_id     TEXT,
    updated_at          INTEGER NOT NULL
);
