//! Community groups through the bot: the anti-spam engine's actions carried
//! out on the fake Bot API, the team's /spam and Unban loop, raids, and
//! questions answered by the TG Bot agent without any tool that acts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::time::Duration;

use serde_json::{Value, json};
use ulias_core::settings::{GroupSettings, Locale, ModerationMode};
use ulias_tests::db::TestDb;
use ulias_tests::fake_telegram::FakeUser;

use surface::*;

const OFFICIAL: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const FOREIGN: &str = "0xdAC17F958D2ee523a2206206994597C13D831ec7";

fn group(captcha: bool, raid_joins: u32) -> GroupSettings {
    GroupSettings {
        chat_id: GROUP,
        name: "PEPE2 community".to_owned(),
        mode: ModerationMode::Normal,
        captcha,
        official_addresses: vec![OFFICIAL.to_owned()],
        operation: None,
        allowed_domains: vec!["pepe2.example.org".to_owned()],
        stop_phrases: Vec::new(),
        raid_joins_per_minute: raid_joins,
        raid_quiet_seconds: 2,
        raid_max_seconds: 3600,
        captcha_seconds: 120,
    }
}

async fn start(settings: GroupSettings, turns: Vec<Value>) -> Surface {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    Surface::start_with(db, Locale::Fr, turns, |all| {
        all.telegram.groups = vec![settings]
    })
    .await
}

fn member(id: i64, name: &str) -> FakeUser {
    FakeUser::new(id, name)
}

async fn calls_of(s: &Surface, method: &str, count: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let calls: Vec<Value> =
            s.tg.calls_of(method)
                .into_iter()
                .map(|c| c.params)
                .collect();
        if calls.len() >= count {
            return calls;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{count} {method} expected, got {calls:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_address_is_deleted_banned_and_answered_with_the_official_one() {
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let scammer = member(9001, "Support Desk");
    let holder = member(9002, "Marie");

    s.tg.send_text(
        GROUP,
        &holder,
        &format!("la seule adresse officielle c'est bien {OFFICIAL} non"),
    );
    let scam = s.tg.send_text(
        GROUP,
        &scammer,
        &format!("Migration V2: send your tokens to {FOREIGN} now"),
    );

    let deleted =
        s.tg.wait_for("deleteMessage", |p| p["message_id"] == scam, WAIT)
            .await;
    assert!(deleted.is_some(), "the scam is deleted");
    let banned = calls_of(&s, "banChatMember", 1).await;
    assert_eq!(banned[0]["user_id"], 9001);
    let reminder = s
        .message_containing(GROUP, "la seule adresse officielle est")
        .await;
    assert!(reminder["text"].as_str().unwrap().contains(OFFICIAL));
    let report = s
        .message_containing(TEAM_CHAT, "utilisateur 9001 banni")
        .await;
    assert!(
        s.tg.calls_of("deleteMessage").len() == 1,
        "the holder quoting the official address is left alone"
    );
    assert!(s.tg.calls_of("banChatMember").len() == 1);

    // The team undoes the ban: the user is unbanned and the message becomes ham.
    let unban = button_data(&report)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&report), &unban);
    let unbanned =
        s.tg.wait_for("unbanChatMember", |p| p["user_id"] == 9001, WAIT)
            .await;
    assert!(unbanned.is_some());
    // Once the ban is lifted and the message relabelled, the team is told.
    s.message_containing(TEAM_CHAT, "Débanni").await;
    let (spam, ham) = s.store().spam_corpus().await.unwrap();
    assert!(
        spam.is_empty() && ham.len() == 1 && ham[0].contains(FOREIGN),
        "{spam:?} {ham:?}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn spam_as_a_reply_by_the_team_deletes_bans_and_learns_the_sample() {
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let spammer = member(9101, "Lucky");
    let spam = s.tg.send_text(
        GROUP,
        &spammer,
        "gm fam, great vibes here, see you at the party",
    );

    let command = s.tg.reply_text(GROUP, &teammate(), "/spam", spam);

    calls_of(&s, "banChatMember", 1).await;
    let deleted: Vec<Value> = calls_of(&s, "deleteMessage", 2).await;
    let ids: Vec<i64> = deleted
        .iter()
        .filter_map(|p| p["message_id"].as_i64())
        .collect();
    assert!(
        ids.contains(&i64::from(spam)) && ids.contains(&i64::from(command)),
        "{ids:?}"
    );
    let learned = eventually("the sample is kept", || async {
        let (spam, _) = s.store().spam_corpus().await.unwrap();
        (!spam.is_empty()).then_some(spam)
    })
    .await;
    assert_eq!(learned, ["gm fam, great vibes here, see you at the party"]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raid_of_200_joins_holds_the_newcomers_only_alerts_the_team_and_ends_by_itself() {
    let s = start(group(false, 10), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let regular = member(19_999, "Chloé");
    s.tg.send_text(GROUP, &regular, "gm");
    // The group's own defaults: no polls, no previews.
    let mut defaults = s.tg.chat_permissions(GROUP);
    defaults["can_send_polls"] = json!(false);
    defaults["can_add_web_page_previews"] = json!(false);
    s.tg.set_chat_permissions(GROUP, defaults.clone());

    for i in 0..200 {
        s.tg.chat_member_joined(GROUP, &member(20_000 + i, &format!("newcomer {i}")));
    }

    let held = |p: &Value| {
        p["permissions"]
            .as_object()
            .is_some_and(|all| all.values().all(|v| v == false))
    };
    let holds = eventually("every newcomer held", || async {
        let holds: Vec<i64> =
            s.tg.calls_of("restrictChatMember")
                .into_iter()
                .filter(|c| held(&c.params))
                .filter_map(|c| c.params["user_id"].as_i64())
                .collect();
        (holds.len() >= 200).then_some(holds)
    })
    .await;
    assert_eq!(holds.len(), 200, "each newcomer once");
    assert!(!holds.contains(&19_999), "a member from before is not held");
    assert!(
        s.tg.calls_of("setChatPermissions").is_empty(),
        "the group itself is never locked"
    );
    s.message_containing(TEAM_CHAT, "raid:").await;
    let written =
        s.tg.send_text(GROUP, &regular, "still here during the raid");
    assert!(
        s.tg.message(GROUP, written).is_some(),
        "older members keep writing"
    );
    // The group stays quiet past `raid_quiet_seconds`, on the process's clock.
    s.advance(chrono::TimeDelta::seconds(3));

    s.message_containing(TEAM_CHAT, "raid over").await;
    let released = eventually("every newcomer released", || async {
        let released: Vec<Value> =
            s.tg.calls_of("restrictChatMember")
                .into_iter()
                .filter(|c| c.params["permissions"]["can_send_messages"] == true)
                .map(|c| c.params["permissions"].clone())
                .collect();
        (released.len() >= 200).then_some(released)
    })
    .await;
    assert_eq!(released.len(), 200);
    for permissions in released {
        for (flag, granted) in defaults.as_object().unwrap() {
            let given = permissions[flag].as_bool().unwrap_or(false);
            assert_eq!(
                &json!(given),
                granted,
                "{flag}: restored as the group had it"
            );
        }
    }
    s.stop().await;
}

/// The captcha asked of `name`: its message, and the button data of the
/// right answer and of a wrong one.
async fn captcha_for(s: &Surface, name: &str) -> (Value, String, String) {
    let question = s
        .message_containing(GROUP, &format!("Bienvenue {name}"))
        .await;
    let text = question["text"].as_str().unwrap();
    let sum: i64 = text
        .rsplit(": ")
        .next()
        .unwrap()
        .split(" = ")
        .next()
        .unwrap()
        .split(" + ")
        .map(|n| n.trim().parse::<i64>().unwrap())
        .sum();
    let buttons = button_data(&question);
    assert_eq!(buttons.len(), 4, "{buttons:?}");
    let right = buttons
        .iter()
        .find(|data| data.ends_with(&format!(":{sum}")))
        .unwrap()
        .clone();
    let wrong = buttons.iter().find(|data| **data != right).unwrap().clone();
    (question, right, wrong)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restricted_newcomer_passes_the_captcha_by_pressing_the_right_button() {
    let s = start(group(true, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let defaults = json!({
        "can_send_messages": true, "can_send_audios": false, "can_send_documents": false,
        "can_send_photos": true, "can_send_videos": false, "can_send_video_notes": false,
        "can_send_voice_notes": false, "can_send_polls": false, "can_send_other_messages": true,
        "can_add_web_page_previews": false, "can_change_info": false, "can_invite_users": true,
        "can_pin_messages": false, "can_manage_topics": false,
    });
    s.tg.set_chat_permissions(GROUP, defaults.clone());
    let newcomer = member(9301, "Nina");

    // As Telegram tells an admin bot: the service message and the update.
    s.tg.member_joins(GROUP, &newcomer);

    let (question, right, _) = captcha_for(&s, "Nina").await;
    let restricted = calls_of(&s, "restrictChatMember", 1).await;
    assert_eq!(restricted[0]["user_id"], 9301);
    assert!(
        s.tg.try_send_text(GROUP, &newcomer, "let me in").is_err(),
        "a restricted newcomer cannot write: only the buttons answer"
    );
    s.tg.press_button(&newcomer, GROUP, id_of(&question), &right);

    let released = eventually("the newcomer released", || async {
        s.tg.calls_of("restrictChatMember").into_iter().find(|c| {
            c.params["user_id"] == 9301 && c.params["permissions"]["can_send_messages"] == true
        })
    })
    .await;
    for (flag, granted) in defaults.as_object().unwrap() {
        let given = released.params["permissions"][flag]
            .as_bool()
            .unwrap_or(false);
        assert_eq!(&json!(given), granted, "{flag}: the group's own default");
    }
    eventually("the captcha message deleted", || async {
        s.tg.message(GROUP, id_of(&question))
            .is_none()
            .then_some(())
    })
    .await;
    assert!(s.tg.try_send_text(GROUP, &newcomer, "gm all").is_ok());
    let captchas =
        s.tg.sent_texts(GROUP)
            .iter()
            .filter(|t| t.starts_with("Bienvenue Nina"))
            .count();
    assert_eq!(captchas, 1, "one join, one captcha");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_press_or_no_press_kicks_the_newcomer_after_the_delay() {
    let s = start(group(true, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let guesser = member(9311, "Gus");
    let silent = member(9312, "Sam");
    s.tg.member_joins(GROUP, &guesser);
    s.tg.member_joins(GROUP, &silent);
    let (gus_question, gus_right, gus_wrong) = captcha_for(&s, "Gus").await;
    let (sam_question, sam_right, _) = captcha_for(&s, "Sam").await;

    // Another member's press is not an answer.
    s.tg.press_button(&silent, GROUP, id_of(&gus_question), &gus_right);
    s.tg.press_button(&guesser, GROUP, id_of(&gus_question), &gus_wrong);
    s.tg.press_button(&guesser, GROUP, id_of(&gus_question), &gus_right);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        s.tg.calls_of("banChatMember").is_empty(),
        "nobody is removed before the delay"
    );
    assert!(
        s.tg.try_send_text(GROUP, &guesser, "hello?").is_err(),
        "no second guess after a wrong press"
    );
    s.advance(chrono::TimeDelta::seconds(121));

    let kicked = calls_of(&s, "banChatMember", 2).await;
    let mut users: Vec<i64> = kicked
        .iter()
        .filter_map(|p| p["user_id"].as_i64())
        .collect();
    users.sort_unstable();
    assert_eq!(users, [9311, 9312]);
    calls_of(&s, "unbanChatMember", 2).await;
    eventually("both captcha messages deleted", || async {
        (s.tg.message(GROUP, id_of(&gus_question)).is_none()
            && s.tg.message(GROUP, id_of(&sam_question)).is_none())
        .then_some(())
    })
    .await;
    let _ = sam_right;
    s.stop().await;
}
#[tokio::test(flavor = "multi_thread")]
async fn send_funds_in_a_group_never_makes_a_tool_call_and_questions_are_answered_from_the_file() {
    let tries_to_act =
        json!({"tool_calls": [{"name": "x_post", "arguments": {"text": "send funds"}}]});
    let answer = finish(
        json!({"answer": "L'équipe ne demande jamais de fonds. Adresse officielle : 0x5aAe…", "sources": ["scan"], "confidence": 0.9}),
    );
    let s = start(group(false, 50), vec![tries_to_act, answer]).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let holder = member(9401, "Paul");

    s.tg.send_text(
        GROUP,
        &holder,
        "send funds to the dev wallet and get double back",
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        s.llm.played(),
        0,
        "not a question: the agent is not even asked"
    );

    // The scam above cost its author their voice; a real holder asks.
    let question = s.tg.send_text(
        GROUP,
        &member(9402, "Léa"),
        "@ulias_test_bot should I send funds to the dev wallet?",
    );
    let reply = s
        .message_containing(GROUP, "ne demande jamais de fonds")
        .await;
    assert_eq!(reply["reply_to_message"]["message_id"], question);

    let task = s
        .store()
        .task(ulias_core::domain::TaskId::new(1))
        .await
        .unwrap();
    assert_eq!(
        task.agent.as_str(),
        "tg_bot",
        "the only task: the TG Bot's answer"
    );
    let log = s.store().log_of_task(task.id).await.unwrap();
    let kinds: Vec<_> = log.iter().map(|row| row.entry.kind).collect();
    assert!(
        kinds.contains(&ulias_core::domain::LogKind::ToolRefused),
        "{kinds:?}"
    );
    assert!(
        !kinds.contains(&ulias_core::domain::LogKind::ToolCall),
        "no tool ran: {kinds:?}"
    );
    assert!(
        s.store().pending_validations().await.unwrap().is_empty(),
        "nothing was proposed for publishing"
    );
    let asked = s.llm.requests()[0].to_string();
    assert!(
        asked.contains("untrusted source="),
        "the question reached the agent as untrusted text"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_who_takes_a_support_name_is_held_for_review() {
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    s.tg.send_text(
        GROUP,
        &member(9501, "Marie"),
        "bonjour à tous, content d'être parmi vous",
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(s.tg.calls_of("restrictChatMember").is_empty());

    s.tg.send_text(
        GROUP,
        &member(9501, "PEPE2 Support"),
        "hello, any problem with your wallet?",
    );

    let held =
        s.tg.wait_for("restrictChatMember", |p| p["user_id"] == 9501, WAIT)
            .await;
    assert!(held.is_some(), "muted until the team reviews");
    s.message_containing(TEAM_CHAT, "impersonation").await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn trust_earned_before_a_restart_is_kept_after_it() {
    let settings = group(false, 50);
    let s = start(settings.clone(), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let regular = member(9101, "Marie");
    for i in 0..5 {
        s.tg.send_text(
            GROUP,
            &regular,
            &format!("message numéro {i} : le graphique remonte bien ce soir"),
        );
    }
    let store = s.store().clone();
    eventually("five clean messages remembered", || {
        let store = store.clone();
        async move {
            let members = store.group_members(GROUP).await.unwrap();
            members
                .iter()
                .find(|m| m.user_id == 9101 && m.clean == 5)
                .cloned()
        }
    })
    .await;
    let db = s.stop_keeping_db().await;

    let s = Surface::start_with(db, Locale::Fr, Vec::new(), |all| {
        all.telegram.groups = vec![settings]
    })
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let invite = "Rejoignez notre groupe pour les annonces https://t.me/+Zq9xWv3kLm";
    let newcomer = s.tg.send_text(GROUP, &member(9102, "Paul"), invite);
    let deleted =
        s.tg.wait_for("deleteMessage", |p| p["message_id"] == newcomer, WAIT)
            .await;
    assert!(deleted.is_some(), "a newcomer's invite is deleted");
    let trusted = s.tg.send_text(GROUP, &regular, invite);
    let store = s.store().clone();
    eventually("the regular's message judged", || {
        let store = store.clone();
        async move {
            let members = store.group_members(GROUP).await.unwrap();
            members
                .iter()
                .find(|m| m.user_id == 9101 && m.clean == 6)
                .cloned()
        }
    })
    .await;
    assert!(
        !s.tg
            .calls_of("deleteMessage")
            .iter()
            .any(|c| c.params["message_id"] == trusted),
        "the regular, trusted before the restart, is left alone"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_answer_to_a_group_question_holds_up_neither_moderation_nor_the_ceo() {
    // The model takes 8 s to answer the question.
    let mut slow = finish(
        json!({"answer": "Le contrat officiel est 0x5aAe…", "sources": ["scan"],
        "confidence": 0.9}),
    );
    slow["delay_ms"] = json!(8_000);
    let s = start(group(false, 50), vec![slow]).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let holder = member(9501, "Léa");
    let scammer = member(9502, "Airdrop Team");

    let question = s.tg.send_text(
        GROUP,
        &holder,
        "@ulias_test_bot quel est le contrat officiel ?",
    );
    // The question is with the model; the group and the CEO go on.
    eventually("the question reaches the model", || async {
        (!s.llm.requests().is_empty()).then_some(())
    })
    .await;
    let asked = tokio::time::Instant::now();
    let scam = s.tg.send_text(
        GROUP,
        &scammer,
        &format!("Migration V2: send your tokens to {FOREIGN} now"),
    );
    s.tg.send_text(CEO, &ceo(), "/status");

    let deleted =
        s.tg.wait_for("deleteMessage", |p| p["message_id"] == scam, WAIT)
            .await;
    assert!(
        deleted.is_some(),
        "the scam is deleted while the answer is pending"
    );
    s.message_containing(CEO, "GPU").await;
    assert!(
        asked.elapsed() < Duration::from_secs(6),
        "moderation and the CEO were served before the model answered: {:?}",
        asked.elapsed()
    );
    assert!(
        !s.tg
            .sent_texts(GROUP)
            .iter()
            .any(|t| t.contains("Le contrat officiel")),
        "the answer is still on its way"
    );

    let reply = s.message_containing(GROUP, "Le contrat officiel est").await;
    assert_eq!(reply["reply_to_message"]["message_id"], question);
    assert_eq!(
        s.tg.sent_texts(GROUP)
            .iter()
            .filter(|t| t.contains("Le contrat officiel"))
            .count(),
        1,
        "answered once"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_answering_after_two_minutes_holds_up_none_of_a_hundred_messages_nor_the_ceo() {
    let mut slow = finish(
        json!({"answer": "Le contrat officiel est 0x5aAe…", "sources": ["scan"],
        "confidence": 0.9}),
    );
    slow["delay_ms"] = json!(120_000);
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::Fr, vec![slow], |all| {
        all.telegram.groups = vec![group(false, 500)];
        // The answer never comes within the test: the stop leaves it.
        all.engine.stop_grace_seconds = 1;
    })
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    s.tg.send_text(
        GROUP,
        &member(9600, "Léa"),
        "@ulias_test_bot quel est le contrat officiel ?",
    );
    eventually("the question reaches the model", || async {
        (!s.llm.requests().is_empty()).then_some(())
    })
    .await;

    let started = tokio::time::Instant::now();
    let mut scams = Vec::new();
    for n in 0..100_i64 {
        let sender = member(9700 + n, &format!("Membre {n}"));
        if n % 10 == 0 {
            let scam = format!("Migration V2 ({n}): send your tokens to {FOREIGN} now");
            scams.push(s.tg.send_text(GROUP, &sender, &scam));
        } else {
            s.tg.send_text(
                GROUP,
                &sender,
                &format!("bonjour, message numéro {n} du jour"),
            );
        }
    }
    s.tg.send_text(CEO, &ceo(), "/status");

    for scam in &scams {
        let deleted =
            s.tg.wait_for("deleteMessage", |p| p["message_id"] == *scam, WAIT)
                .await;
        assert!(
            deleted.is_some(),
            "scam {scam} is deleted while the answer is pending"
        );
    }
    s.message_containing(CEO, "GPU").await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the group and the CEO were served within seconds: {:?}",
        started.elapsed()
    );
    assert!(
        !s.tg
            .sent_texts(GROUP)
            .iter()
            .any(|t| t.contains("Le contrat officiel")),
        "the answer is still with the model"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn questions_over_a_members_allowance_start_no_model_run() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::Fr, Vec::new(), |all| {
        all.telegram.groups = vec![group(false, 50)];
        all.limits.questions_per_member_per_hour = 2;
    })
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let curious = member(9601, "Hugo");
    let other = member(9602, "Inès");

    for n in 1..=4 {
        s.tg.send_text(
            GROUP,
            &curious,
            &format!("@ulias_test_bot question {n} : c'est quoi le contrat ?"),
        );
    }
    s.tg.send_text(GROUP, &other, "@ulias_test_bot et le site officiel ?");

    let questions = "SELECT COUNT(*) FROM tasks WHERE kind = 'group_question'";
    eventually("three questions queued", || async {
        (s.db.scalar(questions).await == 3).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        s.db.scalar(questions).await,
        3,
        "two from Hugo, one from Inès, no more"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn groups_whose_protection_cannot_load_are_reported_and_protected_once_it_loads() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    // What the engine remembers of members cannot be read: protection fails.
    db.execute("ALTER TABLE group_members RENAME TO group_members_away")
        .await
        .unwrap();
    let s = Surface::start_with(db, Locale::Fr, Vec::new(), |all| {
        all.telegram.groups = vec![group(false, 50)]
    })
    .await;

    s.message_containing(TEAM_CHAT, "ne sont pas protégés")
        .await;
    s.db.execute("ALTER TABLE group_members_away RENAME TO group_members")
        .await
        .unwrap();
    s.message_containing(TEAM_CHAT, "de nouveau protégés").await;

    let scam = s.tg.send_text(
        GROUP,
        &member(9701, "Support Desk"),
        &format!("Migration V2: send your tokens to {FOREIGN} now"),
    );
    let deleted =
        s.tg.wait_for("deleteMessage", |p| p["message_id"] == scam, WAIT)
            .await;
    assert!(
        deleted.is_some(),
        "the group is guarded once its protection loads"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_without_delete_rights_is_reported_to_the_team_at_start() {
    use ulias_tests::fake_telegram::Right;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_in_world(
        db,
        Locale::Fr,
        Vec::new(),
        |tg| tg.add_bot_admin(GROUP, &[Right::RestrictMembers]),
        |all| all.telegram.groups = vec![group(false, 50)],
    )
    .await;

    let report = s.message_containing(TEAM_CHAT, "PEPE2 community").await;

    let text = report["text"].as_str().unwrap();
    assert!(text.contains("supprimer"), "{text}");
    assert!(text.contains("épingler"), "{text}");
    assert!(!text.contains("restreindre"), "it may restrict: {text}");

    // Made a full moderator, then demoted to deleting only: told again.
    s.tg.add_bot_admin(GROUP, &[Right::DeleteMessages]);
    s.tg.bot_added(GROUP, &teammate());
    let again = eventually("the team told of the new rights", || async {
        s.tg.sent_texts(TEAM_CHAT)
            .into_iter()
            .find(|t| t.contains("PEPE2 community") && t.contains("restreindre"))
    })
    .await;
    assert!(!again.contains("supprimer"), "{again}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_channel_spamming_is_banned_as_a_channel_and_an_anonymous_admin_or_the_linked_channel_is_left_alone()
 {
    let s = Surface::start_in_world(
        {
            let db = TestDb::sqlite().await;
            db.migrated().await;
            db
        },
        Locale::Fr,
        Vec::new(),
        |tg| {
            tg.add_channel(-100_666, "Free money");
            tg.add_channel(-100_444, "PEPE2 news");
        },
        |all| all.telegram.groups = vec![group(false, 50)],
    )
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let scam = format!("send 0.1 ETH to {FOREIGN} and get 1 ETH back, official giveaway");

    let anonymous = s.tg.send_as_chat(GROUP, GROUP, &scam).unwrap();
    let forwarded = s.tg.automatic_forward(GROUP, -100_444, &scam);
    let spam = s.tg.send_as_chat(GROUP, -100_666, &scam).unwrap();

    let banned = calls_of(&s, "banChatSenderChat", 1).await;
    assert_eq!(banned[0]["sender_chat_id"], -100_666);
    assert!(s.tg.sender_chat_banned(GROUP, -100_666));
    eventually("the channel's spam deleted", || async {
        s.tg.message(GROUP, spam).is_none().then_some(())
    })
    .await;
    assert!(
        s.tg.message(GROUP, anonymous).is_some(),
        "an anonymous admin"
    );
    assert!(
        s.tg.message(GROUP, forwarded).is_some(),
        "the linked channel"
    );
    assert!(
        s.tg.calls_of("banChatMember").is_empty(),
        "no user is banned for a channel's post"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_three_day_old_scam_flagged_with_spam_bans_its_author_and_is_learned_though_it_stays() {
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let now = ulias_core::clock::Clock::now(s.clock.as_ref()).timestamp();
    s.tg.set_now(now - 3 * 86_400);
    let spammer = member(9501, "Old Timer");
    let spam =
        s.tg.send_text(GROUP, &spammer, "gm, lovely weather for a walk today");
    s.tg.set_now(now);

    s.tg.reply_text(GROUP, &teammate(), "/spam", spam);

    let banned = calls_of(&s, "banChatMember", 1).await;
    assert_eq!(banned[0]["user_id"], 9501);
    let learned = eventually("the sample is kept", || async {
        let (spam, _) = s.store().spam_corpus().await.unwrap();
        (!spam.is_empty()).then_some(spam)
    })
    .await;
    assert_eq!(learned, ["gm, lovely weather for a walk today"]);
    assert!(
        s.tg.message(GROUP, spam).is_some(),
        "Telegram refuses to delete others' messages after 48 hours"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ban_answered_429_is_retried_after_the_wait_and_lands() {
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    s.tg.fail_next("banChatMember", 1, 1);
    let spam = s.tg.send_text(GROUP, &member(9601, "Flood"), "buy now");

    s.tg.reply_text(GROUP, &teammate(), "/spam", spam);

    let banned = calls_of(&s, "banChatMember", 1).await;
    assert_eq!(banned[0]["user_id"], 9601);
    let refused =
        s.tg.calls()
            .into_iter()
            .filter(|c| c.method == "banChatMember" && c.refused)
            .count();
    assert_eq!(refused, 1, "the first try met the 429");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_address_reminder_goes_to_the_forum_topic_the_scam_came_from() {
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();

    s.tg.send_text_in_topic(
        GROUP,
        7,
        &member(9701, "Topic Scammer"),
        &format!("the real contract is {FOREIGN}, buy there"),
    );

    let reminder = s.message_containing(GROUP, OFFICIAL).await;
    assert_eq!(reminder["message_thread_id"], 7);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_newcomer_whose_captcha_was_open_at_a_restart_is_still_removed_when_the_time_is_up() {
    let s = start(group(true, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    s.tg.member_joins(GROUP, &member(9321, "Rex"));
    captcha_for(&s, "Rex").await;
    let db = s.stop_keeping_db().await;

    let s = Surface::start_with(db, Locale::Fr, Vec::new(), |all| {
        all.telegram.groups = vec![group(true, 50)]
    })
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    s.advance(chrono::TimeDelta::seconds(121));

    let kicked = calls_of(&s, "banChatMember", 1).await;
    assert_eq!(kicked[0]["user_id"], 9321);
    eventually("the captcha forgotten", || async {
        let open = s.store().open_captchas(GROUP).await.unwrap();
        open.is_empty().then_some(())
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn on_day_zero_a_newcomer_pulling_readers_into_dms_is_deleted_and_a_member_mocking_an_offer_stays()
 {
    // No sample and no model yet: the rules act alone.
    let s = start(group(false, 50), Vec::new()).await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let mocking = s.tg.send_text(
        GROUP,
        &member(9401, "Camille"),
        "mdr on m'a proposé de rejoindre un \"groupe VIP de pump\" en MP, x10 garanti qu'ils disent 🤡",
    );
    let lure = s.tg.send_text(
        GROUP,
        &member(9402, "Jonas"),
        "hey, wegen deiner Frage von vorhin – schau mal in deine DMs, hab dir was geschickt 👀",
    );

    let deleted =
        s.tg.wait_for("deleteMessage", |p| p["message_id"] == lure, WAIT)
            .await;
    assert!(deleted.is_some(), "the lure is deleted");
    let ids: Vec<Value> =
        s.tg.calls_of("deleteMessage")
            .into_iter()
            .map(|c| c.params["message_id"].clone())
            .collect();
    assert!(
        !ids.contains(&json!(mocking)),
        "the member mocking the offer keeps their message: {ids:?}"
    );
    assert!(
        s.tg.calls_of("banChatMember")
            .iter()
            .all(|c| c.params["user_id"] != 9401),
        "nor is the member banned"
    );
    s.stop().await;
}
