//! The Telegram fake, driven by the real teloxide client over real HTTP (and
//! by raw requests where the envelope itself is under test).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use teloxide::prelude::*;
use teloxide::types::{
    AllowedUpdate, BotCommand, ChatMemberStatus, ChatPermissions, InlineKeyboardButton,
    InlineKeyboardMarkup, InputFile, InputMedia, InputMediaPhoto, InputPollOption, MessageId,
    UntilDate, UpdateKind,
};
use teloxide::{ApiError, RequestError};
use ulias_tests::fake_telegram::{BOT_ID, FakeTelegram, FakeUser, Right, TOKEN};

const GROUP: i64 = -1_001_234_567_890;

fn bot(tg: &FakeTelegram) -> Bot {
    Bot::new(TOKEN).set_api_url(tg.api_url.parse().unwrap())
}

fn alice() -> FakeUser {
    FakeUser::new(1001, "Alice").with_username("alice")
}

/// A raw call: (HTTP status, envelope).
async fn raw(tg: &FakeTelegram, method: &str, params: Value) -> (u16, Value) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let response = reqwest::Client::new()
        .post(format!("{}bot{TOKEN}/{method}", tg.api_url))
        .json(&params)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn keyboard(data: &str) -> InlineKeyboardMarkup {
    InlineKeyboardMarkup::new([[InlineKeyboardButton::callback("Go", data)]])
}

fn api_error(result: Result<impl std::fmt::Debug, RequestError>) -> ApiError {
    match result {
        Err(RequestError::Api(error)) => error,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn get_me_answers_a_bot_and_unknown_methods_are_404() {
    let tg = FakeTelegram::start().await;
    let me = bot(&tg).get_me().await.unwrap();
    assert!(me.is_bot);
    assert_eq!(me.id, UserId(BOT_ID as u64));
    assert_eq!(me.username(), "ulias_test_bot");
    assert!(me.can_join_groups);

    let (status, body) = raw(&tg, "sendTelepathy", json!({})).await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        json!({"ok": false, "error_code": 404, "description": "Not Found: method not found"})
    );

    // GET with a query string works too.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let body: Value = reqwest::get(format!("{}bot{TOKEN}/getMe?x=1", tg.api_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["result"]["first_name"], "Ulias");
    assert!(bot(&tg).delete_webhook().await.is_ok());
    assert!(bot(&tg).get_webhook_info().await.unwrap().url.is_none());
}

#[tokio::test]
async fn send_message_to_an_unknown_chat_is_refused() {
    let tg = FakeTelegram::start().await;
    let (status, body) = raw(&tg, "sendMessage", json!({"chat_id": 777, "text": "hi"})).await;
    assert_eq!(status, 400);
    assert_eq!(body["description"], "Bad Request: chat not found");
    assert_eq!(body["error_code"], 400);

    let error = api_error(bot(&tg).send_message(ChatId(777), "hi").await);
    assert_eq!(error, ApiError::ChatNotFound);

    tg.add_private_chat(777, "Bob");
    let sent = bot(&tg).send_message(ChatId(777), "hi").await.unwrap();
    assert_eq!(sent.text(), Some("hi"));
    assert_eq!(sent.chat.id, ChatId(777));
    assert_eq!(sent.from.as_ref().unwrap().id, UserId(BOT_ID as u64));
    let second = bot(&tg).send_message(ChatId(777), "again").await.unwrap();
    assert_eq!(second.id.0, sent.id.0 + 1, "message ids increase per chat");
    assert_eq!(tg.sent_texts(777), ["hi", "again"]);
    assert_eq!(
        tg.calls_of("sendMessage").len(),
        2,
        "refused calls are not accepted ones"
    );
    assert_eq!(tg.calls().iter().filter(|c| c.refused).count(), 2);
}

#[tokio::test]
async fn texts_too_long_or_empty_are_refused() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    let bot = bot(&tg);

    let error = api_error(bot.send_message(ChatId(GROUP), "a".repeat(4097)).await);
    assert_eq!(error, ApiError::MessageIsTooLong);
    assert!(
        bot.send_message(ChatId(GROUP), "a".repeat(4096))
            .await
            .is_ok()
    );
    let error = api_error(bot.send_message(ChatId(GROUP), "  ").await);
    assert_eq!(error, ApiError::MessageTextIsEmpty);

    // HTML tags do not count, as with Telegram; the stored text is the visible one.
    let html = format!("<b>{}</b>", "a".repeat(4096));
    let sent = bot
        .send_message(ChatId(GROUP), html)
        .parse_mode(teloxide::types::ParseMode::Html)
        .await
        .unwrap();
    assert_eq!(sent.text().unwrap().len(), 4096);
}

#[tokio::test]
async fn callback_data_of_65_bytes_is_refused() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    let bot = bot(&tg);

    let error = api_error(
        bot.send_message(ChatId(GROUP), "pick")
            .reply_markup(keyboard(&"x".repeat(65)))
            .await,
    );
    assert_eq!(error, ApiError::ButtonDataInvalid);

    let sent = bot
        .send_message(ChatId(GROUP), "pick")
        .reply_markup(keyboard(&"x".repeat(64)))
        .await
        .unwrap();
    assert_eq!(sent.reply_markup().unwrap().inline_keyboard[0].len(), 1);
    let stored = tg.message(GROUP, sent.id.0).unwrap();
    assert_eq!(
        stored["reply_markup"]["inline_keyboard"][0][0]["callback_data"],
        "x".repeat(64)
    );
}

#[tokio::test]
async fn fail_next_answers_429_then_the_next_call_succeeds() {
    let tg = FakeTelegram::start().await;
    tg.add_private_chat(42, "Bob");

    tg.fail_next("sendMessage", 1, 1);
    let (status, body) = raw(&tg, "sendMessage", json!({"chat_id": 42, "text": "hi"})).await;
    assert_eq!(status, 429);
    assert_eq!(body["description"], "Too Many Requests: retry after 1");
    assert_eq!(body["parameters"]["retry_after"], 1);
    let (status, _) = raw(&tg, "sendMessage", json!({"chat_id": 42, "text": "hi"})).await;
    assert_eq!(status, 200);

    tg.fail_next("sendMessage", 1, 3);
    match bot(&tg).send_message(ChatId(42), "hi").await {
        Err(RequestError::RetryAfter(wait)) => assert_eq!(wait.seconds(), 3),
        other => panic!("expected RetryAfter, got {other:?}"),
    }
    assert!(bot(&tg).send_message(ChatId(42), "hi").await.is_ok());
    let refused: Vec<_> = tg.calls().into_iter().filter(|c| c.refused).collect();
    assert_eq!(refused.len(), 2);
    assert!(refused.iter().all(|c| c.method == "sendMessage"));
}

#[tokio::test]
async fn get_updates_long_polls_and_respects_the_offset() {
    let tg = FakeTelegram::start().await;
    let bot = bot(&tg);

    // Nothing queued: a long poll waits, then answers when a text arrives.
    let injector = tg.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        injector.send_text(1001, &alice(), "hello");
    });
    let started = Instant::now();
    let updates = bot.get_updates().timeout(10).await.unwrap();
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(250),
        "it waited ({waited:?})"
    );
    assert!(
        waited < Duration::from_secs(2),
        "it woke up early ({waited:?})"
    );
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].id.0, 1);
    let UpdateKind::Message(message) = &updates[0].kind else {
        panic!("a message, got {:?}", updates[0].kind);
    };
    assert_eq!(message.text(), Some("hello"));
    assert_eq!(
        message.from.as_ref().unwrap().username.as_deref(),
        Some("alice")
    );
    assert!(message.chat.is_private());

    // Without a new offset the update comes again; with it, it is gone.
    let again = bot.get_updates().await.unwrap();
    assert_eq!(again.len(), 1);
    let started = Instant::now();
    let none = bot.get_updates().offset(2).timeout(1).await.unwrap();
    assert!(none.is_empty());
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "it waited the timeout"
    );
    assert_eq!(tg.pending_updates(), 0);

    // The cap: a 30 s timeout comes back after about 2 s.
    let started = Instant::now();
    assert!(
        bot.get_updates()
            .offset(2)
            .timeout(30)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(started.elapsed() < Duration::from_secs(3));

    tg.send_text(1001, &alice(), "/start now");
    let updates = bot.get_updates().offset(2).limit(5).await.unwrap();
    assert_eq!(updates[0].id.0, 2);
}

#[tokio::test]
async fn every_injected_update_parses_in_teloxide() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    let bot = bot(&tg);
    let bob = FakeUser::new(2002, "Bob").with_language("fr");

    let question = bot
        .send_message(ChatId(GROUP), "Which one?")
        .reply_markup(keyboard("vote:1"))
        .await
        .unwrap();
    tg.send_text(GROUP, &bob, "/help@ulias_test_bot");
    tg.reply_text(GROUP, &bob, "this one", question.id.0);
    let query_id = tg.press_button(&bob, GROUP, question.id.0, "vote:1");
    tg.member_joins(GROUP, &alice());
    let poll = bot
        .send_poll(
            ChatId(GROUP),
            "Lunch?",
            [InputPollOption::new("yes"), InputPollOption::new("no")],
        )
        .is_anonymous(false)
        .await
        .unwrap();
    let poll_id = poll.poll().unwrap().id.0.clone();
    tg.poll_answer(&poll_id, &bob, &[0]);

    let updates = bot
        .get_updates()
        .allowed_updates([
            AllowedUpdate::Message,
            AllowedUpdate::CallbackQuery,
            AllowedUpdate::ChatMember,
            AllowedUpdate::PollAnswer,
        ])
        .await
        .unwrap();
    let kinds: Vec<&UpdateKind> = updates.iter().map(|u| &u.kind).collect();
    assert_eq!(kinds.len(), 6, "{kinds:#?}");
    let UpdateKind::Message(command) = kinds[0] else {
        panic!("{:?}", kinds[0])
    };
    assert_eq!(command.text(), Some("/help@ulias_test_bot"));
    assert_eq!(
        command.from.as_ref().unwrap().language_code.as_deref(),
        Some("fr")
    );
    let UpdateKind::Message(reply) = kinds[1] else {
        panic!("{:?}", kinds[1])
    };
    assert_eq!(reply.reply_to_message().unwrap().id, question.id);
    let UpdateKind::CallbackQuery(query) = kinds[2] else {
        panic!("{:?}", kinds[2])
    };
    assert_eq!(query.id.0, query_id);
    assert_eq!(query.data.as_deref(), Some("vote:1"));
    assert_eq!(query.regular_message().unwrap().id, question.id);
    assert!(query.regular_message().unwrap().reply_markup().is_some());
    let UpdateKind::Message(joined) = kinds[3] else {
        panic!("{:?}", kinds[3])
    };
    assert_eq!(joined.new_chat_members().unwrap()[0].first_name, "Alice");
    let UpdateKind::ChatMember(member) = kinds[4] else {
        panic!("{:?}", kinds[4])
    };
    assert_eq!(member.old_chat_member.status(), ChatMemberStatus::Left);
    assert_eq!(member.new_chat_member.status(), ChatMemberStatus::Member);
    let UpdateKind::PollAnswer(answer) = kinds[5] else {
        panic!("{:?}", kinds[5])
    };
    assert_eq!(answer.option_ids, [0]);
    let stored = tg.message(GROUP, poll.id.0).unwrap();
    assert_eq!(stored["poll"]["options"][0]["voter_count"], 1);
    tg.poll_answer(&poll_id, &bob, &[1]);
    let stored = tg.message(GROUP, poll.id.0).unwrap();
    assert_eq!(stored["poll"]["options"][0]["voter_count"], 0);
    assert_eq!(stored["poll"]["options"][1]["voter_count"], 1);
    assert_eq!(stored["poll"]["total_voter_count"], 1);

    bot.answer_callback_query(query.id.clone())
        .text("Counted")
        .await
        .unwrap();
    let error = api_error(bot.answer_callback_query(query.id.clone()).await);
    assert!(
        matches!(&error, ApiError::Unknown(text) if text.contains("query ID is invalid")),
        "a second answer is refused: {error:?}"
    );
}

#[tokio::test]
async fn chat_member_updates_reach_only_a_bot_that_asked_for_them() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);
    tg.chat_member_joined(GROUP, &alice());
    tg.send_text(GROUP, &alice(), "hi all");
    let updates = bot.get_updates().await.unwrap();
    assert_eq!(updates.len(), 1);
    assert!(matches!(updates[0].kind, UpdateKind::Message(_)));
    let updates = bot
        .get_updates()
        .allowed_updates([AllowedUpdate::ChatMember])
        .await
        .unwrap();
    assert_eq!(updates.len(), 1);
    assert!(matches!(updates[0].kind, UpdateKind::ChatMember(_)));
}

#[tokio::test]
async fn edits_behave_as_telegram_does() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);

    let error = api_error(
        bot.edit_message_text(ChatId(GROUP), MessageId(99), "x")
            .await,
    );
    assert_eq!(error, ApiError::MessageToEditNotFound);

    let sent = bot
        .send_message(ChatId(GROUP), "Draft")
        .reply_markup(keyboard("ok"))
        .await
        .unwrap();
    let error = api_error(
        bot.edit_message_text(ChatId(GROUP), sent.id, "Draft")
            .reply_markup(keyboard("ok"))
            .await,
    );
    assert_eq!(error, ApiError::MessageNotModified);

    // An edit without a keyboard removes it.
    let edited = bot
        .edit_message_text(ChatId(GROUP), sent.id, "Final")
        .await
        .unwrap();
    assert_eq!(edited.text(), Some("Final"));
    assert!(edited.edit_date().is_some());
    let stored = tg.message(GROUP, sent.id.0).unwrap();
    assert_eq!(stored["text"], "Final");
    assert!(stored.get("reply_markup").is_none());

    let marked = bot
        .edit_message_reply_markup(ChatId(GROUP), sent.id)
        .reply_markup(keyboard("again"))
        .await
        .unwrap();
    assert!(marked.reply_markup().is_some());
    assert_eq!(tg.sent_texts(GROUP), ["Draft", "Final"]);

    // A user's message cannot be edited; deleting twice fails the second time.
    let theirs = tg.send_text(GROUP, &alice(), "mine");
    let error = api_error(
        bot.edit_message_text(ChatId(GROUP), MessageId(theirs), "no")
            .await,
    );
    assert_eq!(error, ApiError::MessageCantBeEdited);
    bot.delete_message(ChatId(GROUP), MessageId(theirs))
        .await
        .unwrap();
    let error = api_error(bot.delete_message(ChatId(GROUP), MessageId(theirs)).await);
    assert_eq!(error, ApiError::MessageToDeleteNotFound);
    assert!(tg.message(GROUP, theirs).is_none());
    bot.delete_messages(ChatId(GROUP), [sent.id, MessageId(1234)])
        .await
        .unwrap();
    assert!(tg.messages(GROUP).is_empty());

    let waited = tg
        .wait_for(
            "editMessageText",
            |p| p["text"] == "Final",
            Duration::from_millis(100),
        )
        .await;
    assert_eq!(waited.unwrap()["message_id"], sent.id.0);
}

#[tokio::test]
async fn photos_and_albums_are_sent_as_multipart() {
    let tg = FakeTelegram::start().await;
    tg.add_channel(-1_009_999, "Ulias news");
    tg.add_bot_moderator(-1_009_999);
    let bot = bot(&tg);

    let sent = bot
        .send_photo(
            ChatId(-1_009_999),
            InputFile::memory(vec![7_u8; 2048]).file_name("chart.png"),
        )
        .caption("Weekly chart")
        .reply_markup(keyboard("more"))
        .await
        .unwrap();
    assert_eq!(sent.caption(), Some("Weekly chart"));
    assert!(!sent.photo().unwrap().is_empty());
    assert!(
        sent.from.is_none() && sent.sender_chat.is_some(),
        "a channel post"
    );
    let call = &tg.calls_of("sendPhoto")[0];
    assert_eq!(call.params["caption"], "Weekly chart");
    assert_eq!(call.params["chat_id"], -1_009_999);
    assert!(call.params["reply_markup"]["inline_keyboard"].is_array());
    assert_eq!(call.files.len(), 1);
    assert_eq!(call.files[0].size, 2048);

    let album = bot
        .send_media_group(
            ChatId(-1_009_999),
            [
                InputMedia::Photo(
                    InputMediaPhoto::new(InputFile::memory(vec![1_u8; 10])).caption("one"),
                ),
                InputMedia::Photo(InputMediaPhoto::new(InputFile::memory(vec![2_u8; 20]))),
            ],
        )
        .await
        .unwrap();
    assert_eq!(album.len(), 2);
    assert_eq!(album[0].media_group_id(), album[1].media_group_id());
    assert_eq!(album[0].caption(), Some("one"));
    let call = &tg.calls_of("sendMediaGroup")[0];
    assert_eq!(call.params["media"].as_array().unwrap().len(), 2);
    let mut sizes: Vec<usize> = call.files.iter().map(|f| f.size).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [10, 20]);
}

#[tokio::test]
async fn polls_need_2_to_10_options_and_close_once() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    let bot = bot(&tg);
    let options = |n: usize| (0..n).map(|i| InputPollOption::new(format!("option {i}")));

    let error = api_error(bot.send_poll(ChatId(GROUP), "Q?", options(1)).await);
    assert_eq!(error, ApiError::PollMustHaveMoreOptions);
    let (status, body) = raw(
        &tg,
        "sendPoll",
        json!({"chat_id": GROUP, "question": "Q?", "options": (0..11).map(|i| format!("o{i}")).collect::<Vec<_>>()}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["description"],
        "Bad Request: poll can't have more than 10 options"
    );

    let sent = bot
        .send_poll(ChatId(GROUP), "Which day?", options(3))
        .await
        .unwrap();
    let poll = sent.poll().unwrap();
    assert_eq!(poll.options.len(), 3);
    assert!(poll.is_anonymous && !poll.is_closed);
    let stopped = bot.stop_poll(ChatId(GROUP), sent.id).await.unwrap();
    assert!(stopped.is_closed);
    let error = api_error(bot.stop_poll(ChatId(GROUP), sent.id).await);
    assert_eq!(error, ApiError::PollHasAlreadyClosed);
}

#[tokio::test]
async fn admins_commands_and_moderation() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    let owner = FakeUser::new(1, "Owner");
    tg.add_owner(GROUP, &owner);
    tg.add_admin(GROUP, &FakeUser::bot());
    let bot = bot(&tg);

    let admins = bot.get_chat_administrators(ChatId(GROUP)).await.unwrap();
    assert_eq!(admins.len(), 2);
    assert!(admins[0].is_owner());
    assert!(admins[1].is_administrator() && admins[1].can_restrict_members());

    let spammer = FakeUser::new(666, "Spammer");
    tg.member_joins(GROUP, &spammer);
    let until = chrono::DateTime::from_timestamp(2_000_000_000, 0).unwrap();
    bot.restrict_chat_member(ChatId(GROUP), UserId(666), ChatPermissions::empty())
        .until_date(until)
        .await
        .unwrap();
    let member = bot
        .get_chat_member(ChatId(GROUP), UserId(666))
        .await
        .unwrap();
    assert_eq!(member.status(), ChatMemberStatus::Restricted);
    assert_eq!(member.until_date(), Some(UntilDate::Date(until)));
    bot.ban_chat_member(ChatId(GROUP), UserId(666))
        .await
        .unwrap();
    assert_eq!(tg.member_status(GROUP, 666).as_deref(), Some("kicked"));
    let error = api_error(bot.ban_chat_member(ChatId(GROUP), UserId(1)).await);
    assert!(matches!(error, ApiError::Unknown(_)), "{error:?}");
    bot.set_chat_permissions(ChatId(GROUP), ChatPermissions::SEND_MESSAGES)
        .await
        .unwrap();
    bot.pin_chat_message(ChatId(GROUP), MessageId(1))
        .await
        .unwrap();
    bot.send_chat_action(ChatId(GROUP), teloxide::types::ChatAction::Typing)
        .await
        .unwrap();

    bot.set_my_commands([BotCommand::new("help", "What I can do")])
        .await
        .unwrap();
    let commands = bot.get_my_commands().await.unwrap();
    assert_eq!(commands, [BotCommand::new("help", "What I can do")]);
    let error = api_error(bot.set_my_commands([BotCommand::new("Help!", "x")]).await);
    assert!(matches!(error, ApiError::Unknown(_)), "{error:?}");
}

#[tokio::test]
async fn a_dispatcher_runs_against_the_fake() {
    let tg = FakeTelegram::start().await;
    let handler = dptree::entry()
        .branch(
            Update::filter_message().endpoint(|bot: Bot, message: Message| async move {
                let text = format!("echo: {}", message.text().unwrap_or_default());
                bot.send_message(message.chat.id, text)
                    .reply_markup(keyboard("again"))
                    .await?;
                respond(())
            }),
        )
        .branch(Update::filter_callback_query().endpoint(
            |bot: Bot, query: CallbackQuery| async move {
                bot.answer_callback_query(query.id).text("done").await?;
                respond(())
            },
        ));
    let mut dispatcher = Dispatcher::builder(bot(&tg), handler).build();
    let shutdown = dispatcher.shutdown_token();
    let running = tokio::spawn(async move { dispatcher.dispatch().await });

    tg.send_text(1001, &alice(), "ping");
    let echoed = tg
        .wait_for(
            "sendMessage",
            |p| p["text"] == "echo: ping",
            Duration::from_secs(10),
        )
        .await;
    assert!(echoed.is_some(), "calls: {:#?}", tg.calls());
    let echo_id = tg.messages(1001).last().unwrap()["message_id"]
        .as_i64()
        .unwrap();
    tg.press_button(&alice(), 1001, i32::try_from(echo_id).unwrap(), "again");
    let answered = tg
        .wait_for(
            "answerCallbackQuery",
            |p| p["text"] == "done",
            Duration::from_secs(10),
        )
        .await;
    assert!(answered.is_some(), "calls: {:#?}", tg.calls());
    let methods: Vec<String> = tg.calls().into_iter().map(|c| c.method).collect();
    assert!(methods.contains(&"getMe".to_owned()));
    assert!(methods.contains(&"getUpdates".to_owned()));
    assert!(tg.calls().iter().all(|c| !c.refused), "{:#?}", tg.calls());

    shutdown.shutdown().unwrap().await;
    running.await.unwrap();
}

#[tokio::test]
async fn a_throttled_bot_waits_out_a_429_and_retries() {
    let tg = FakeTelegram::start().await;
    tg.add_private_chat(42, "Bob");
    let throttled = bot(&tg).throttle(teloxide::adaptors::throttle::Limits::default());
    tg.fail_next("sendMessage", 1, 1);
    let started = Instant::now();
    let sent = throttled.send_message(ChatId(42), "hello").await.unwrap();
    assert_eq!(sent.text(), Some("hello"));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "it waited retry_after"
    );
    let calls = tg.calls();
    assert_eq!(calls.len(), 2);
    assert!(calls[0].refused && !calls[1].refused);
    assert!(calls[1].at.duration_since(calls[0].at) >= Duration::from_millis(900));
}

// ---- Telegram's rules, enforced ----

#[tokio::test]
async fn a_restricted_member_cannot_write_but_can_press_a_button() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);
    tg.member_joins(GROUP, &alice());
    let question = bot
        .send_message(ChatId(GROUP), "Which is a fruit?")
        .reply_markup(keyboard("apple"))
        .await
        .unwrap();

    bot.restrict_chat_member(ChatId(GROUP), UserId(1001), ChatPermissions::empty())
        .await
        .unwrap();

    let refused = tg.try_send_text(GROUP, &alice(), "let me in");
    assert!(refused.unwrap_err().contains("cannot send messages"));
    tg.press_button(&alice(), GROUP, question.id.0, "apple");
    bot.restrict_chat_member(ChatId(GROUP), UserId(1001), ChatPermissions::all())
        .await
        .unwrap();
    assert!(tg.try_send_text(GROUP, &alice(), "thanks").is_ok());
}

#[tokio::test]
async fn moderation_needs_the_matching_administrator_right() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.set_privacy(false);
    let bot = bot(&tg);
    let theirs = tg.send_text(GROUP, &alice(), "buy my coin");

    // A plain member: no moderation at all.
    let error = api_error(bot.delete_message(ChatId(GROUP), MessageId(theirs)).await);
    assert_eq!(error, ApiError::MessageCantBeDeleted);
    let error = api_error(bot.ban_chat_member(ChatId(GROUP), UserId(1001)).await);
    assert_eq!(error, ApiError::NotEnoughRightsToRestrict);
    let error = api_error(bot.pin_chat_message(ChatId(GROUP), MessageId(theirs)).await);
    assert_eq!(error, ApiError::NotEnoughRightsToManagePins);

    // An administrator that may delete, not restrict.
    tg.add_bot_admin(GROUP, &[Right::DeleteMessages]);
    bot.delete_message(ChatId(GROUP), MessageId(theirs))
        .await
        .unwrap();
    let error = api_error(
        bot.restrict_chat_member(ChatId(GROUP), UserId(1001), ChatPermissions::empty())
            .await,
    );
    assert_eq!(error, ApiError::NotEnoughRightsToRestrict);
    let error = api_error(
        bot.set_chat_permissions(ChatId(GROUP), ChatPermissions::empty())
            .await,
    );
    assert_eq!(error, ApiError::NotEnoughRightsToChangeChatPermissions);
    assert_eq!(
        tg.member_status(GROUP, BOT_ID).as_deref(),
        Some("administrator")
    );
}

#[tokio::test]
async fn others_messages_older_than_48_hours_cannot_be_deleted() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);
    tg.set_now(1_800_000_000);
    let theirs = tg.send_text(GROUP, &alice(), "old scam");
    let mine = bot.send_message(ChatId(GROUP), "old notice").await.unwrap();

    tg.set_now(1_800_000_000 + 48 * 3600 + 1);

    let error = api_error(bot.delete_message(ChatId(GROUP), MessageId(theirs)).await);
    assert_eq!(error, ApiError::MessageCantBeDeleted);
    assert!(tg.message(GROUP, theirs).is_some());
    bot.delete_message(ChatId(GROUP), mine.id).await.unwrap();
}

#[tokio::test]
async fn without_privacy_rights_a_bot_sees_only_commands_mentions_and_replies() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    let bot = bot(&tg);
    let notice = bot.send_message(ChatId(GROUP), "Hello").await.unwrap();

    tg.send_text(GROUP, &alice(), "just chatting");
    tg.send_text(GROUP, &alice(), "/help");
    tg.send_text(GROUP, &alice(), "hey @ulias_test_bot what is the contract?");
    tg.reply_text(GROUP, &alice(), "thanks bot", notice.id.0);
    tg.member_joins(GROUP, &FakeUser::new(1002, "Carol"));

    let texts: Vec<String> = bot
        .get_updates()
        .await
        .unwrap()
        .into_iter()
        .filter_map(|update| match update.kind {
            UpdateKind::Message(message) => Some(message.text().unwrap_or("<service>").to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            "/help",
            "hey @ulias_test_bot what is the contract?",
            "thanks bot",
            "<service>"
        ]
    );
}

#[tokio::test]
async fn the_bot_cannot_write_first_nor_post_in_a_channel_it_does_not_administer() {
    let tg = FakeTelegram::start().await;
    tg.add_channel(-1_009_999, "Ulias news");
    tg.add_unstarted_user(&alice());
    let bot = bot(&tg);

    let (status, body) = raw(&tg, "sendMessage", json!({"chat_id": 1001, "text": "hi"})).await;
    assert_eq!(status, 403);
    assert_eq!(
        body["description"],
        "Forbidden: bot can't initiate conversation with a user"
    );
    let error = api_error(bot.send_message(ChatId(-1_009_999), "news").await);
    assert_eq!(error, ApiError::NotEnoughRightsToPostMessages);

    tg.add_bot_moderator(-1_009_999);
    bot.send_message(ChatId(-1_009_999), "news").await.unwrap();
    tg.send_text(1001, &alice(), "/start");
    bot.send_message(ChatId(1001), "welcome").await.unwrap();
}

#[tokio::test]
async fn media_given_by_an_unreachable_url_fails_the_send() {
    let tg = FakeTelegram::start().await;
    tg.add_private_chat(1001, "Alice");
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/banner.png", dead.local_addr().unwrap());
    drop(dead);

    let (status, body) = raw(&tg, "sendPhoto", json!({"chat_id": 1001, "photo": url})).await;

    assert_eq!(status, 400);
    assert_eq!(
        body["description"],
        "Bad Request: failed to get HTTP URL content"
    );
    assert!(tg.messages(1001).is_empty());
}

#[tokio::test]
async fn a_channel_banned_from_a_group_can_no_longer_post_there() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_channel(-1_005_555, "Spam channel");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);
    assert!(tg.send_as_chat(GROUP, -1_005_555, "buy now").is_ok());

    bot.ban_chat_sender_chat(ChatId(GROUP), ChatId(-1_005_555))
        .await
        .unwrap();

    assert!(tg.sender_chat_banned(GROUP, -1_005_555));
    assert!(tg.send_as_chat(GROUP, -1_005_555, "buy again").is_err());
    assert!(
        tg.send_as_chat(GROUP, GROUP, "anonymous admin here")
            .is_ok()
    );
}

#[tokio::test]
async fn get_chat_gives_the_default_permissions_set_chat_permissions_left() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);
    let before = bot.get_chat(ChatId(GROUP)).await.unwrap();
    assert!(
        before
            .permissions()
            .unwrap()
            .contains(ChatPermissions::SEND_MESSAGES)
    );

    bot.set_chat_permissions(
        ChatId(GROUP),
        ChatPermissions::SEND_MESSAGES | ChatPermissions::SEND_POLLS,
    )
    .await
    .unwrap();

    let after = bot.get_chat(ChatId(GROUP)).await.unwrap();
    let permissions = after.permissions().unwrap();
    assert!(permissions.contains(ChatPermissions::SEND_POLLS));
    assert!(!permissions.contains(ChatPermissions::SEND_PHOTOS));
    assert_eq!(tg.chat_permissions(GROUP)["can_send_polls"], true);
}

#[tokio::test]
async fn any_method_may_answer_429() {
    let tg = FakeTelegram::start().await;
    tg.add_group(GROUP, "Ulias community");
    tg.add_bot_moderator(GROUP);
    let bot = bot(&tg);
    tg.fail_next("banChatMember", 1, 3);

    let error = bot.ban_chat_member(ChatId(GROUP), UserId(1001)).await;

    assert!(
        matches!(error, Err(RequestError::RetryAfter(_))),
        "{error:?}"
    );
    bot.ban_chat_member(ChatId(GROUP), UserId(1001))
        .await
        .unwrap();
}
