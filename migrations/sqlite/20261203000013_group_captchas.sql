-- A newcomer's open captcha, so a restart neither forgets to remove them
-- when the time is up nor leaves them restricted for good: the answer, the
-- deadline (unix seconds), whether a wrong button was pressed, and the
-- question's message (deleted once answered or expired).
-- Keep in step with ../postgres/.
CREATE TABLE group_captchas (
    chat_id             INTEGER NOT NULL,
    user_id             INTEGER NOT NULL,
    answer              INTEGER NOT NULL,
    deadline            INTEGER NOT NULL,
    failed              INTEGER NOT NULL DEFAULT 0 CHECK (failed IN (0, 1)),
    message_id          INTEGER,
    PRIMARY KEY (chat_id, user_id)
);
