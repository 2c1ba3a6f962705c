-- A newcomer's open captcha, so a restart neither forgets to remove them
-- when the time is up nor leaves them restricted for good: the answer, the
-- deadline (unix seconds), whether a wrong button was pressed, and the
-- question's message (deleted once answered or expired).
-- Keep in step with ../sqlite/.
CREATE TABLE group_captchas (
    chat_id             BIGINT NOT NULL,
    user_id             BIGINT NOT NULL,
    answer              BIGINT NOT NULL,
    deadline            BIGINT NOT NULL,
    failed              BIGINT NOT NULL DEFAULT 0 CHECK (failed IN (0, 1)),
    message_id          BIGINT,
    PRIMARY KEY (chat_id, user_id)
);
