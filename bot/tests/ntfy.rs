//! ntfy through the process: alerts and decisions pushed to a loopback ntfy
//! stand-in that enforces tokens per topic, decisions answered A/B/C from a
//! phone with signed buttons, each answer applied once, forged or expired
//! replies refused, pushes refused while ntfy is down delivered once it is
//! back, and a dropped reply stream resumed without losing an answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::time::Duration;

use chrono::TimeDelta;
use secrecy::SecretString;
use ulias_core::domain::{
    DecisionId, DecisionKind, DecisionOption, DecisionStatus, NewDecision, Urgency,
};
use ulias_core::settings::Locale;
use ulias_core::store::Store;
use ulias_tests::db::TestDb;
use ulias_tests::fake_ntfy::{Access, FakeNtfy};

use surface::*;

const ALERTS: &str = "ulias-alerts-7f3a";
const REPLIES: &str = "ulias-replies-9c1e";
/// The bot's signing key: it must never reach the phone.
const KEY: &str = "5f2b9c0e7a1d4f8e6b3c2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f0e1d2c";

/// A doubt about a result: three options (accept, run again, cancel).
fn decision(title: &str) -> NewDecision {
    NewDecision {
        context_summary: "Disk at 91 %.".to_owned(),
        recommended: Some(DecisionOption::Rerun),
        urgency: Urgency::High,
        timeout_at: Some(start_time() + TimeDelta::hours(2)),
        auto_decision: Some(DecisionOption::Cancel),
        ..NewDecision::new(DecisionKind::Doubt {
            agent: "infra".to_owned(),
            title: title.to_owned(),
            confidence_pct: 50,
        })
    }
}

async fn start(ntfy: &FakeNtfy, db: TestDb) -> Surface {
    start_in(ntfy, db, Locale::En).await
}

/// The process with ntfy as the README sets it up: the bot writes alerts
/// and reads replies, the buttons' token only writes replies, the phone
/// only reads alerts.
async fn start_in(ntfy: &FakeNtfy, db: TestDb, locale: Locale) -> Surface {
    ntfy.grant("tk_main", ALERTS, Access::Write);
    ntfy.grant("tk_main", REPLIES, Access::Read);
    ntfy.grant("tk_reply_only", REPLIES, Access::Write);
    ntfy.grant("tk_phone", ALERTS, Access::Read);
    let url = ntfy.url.clone();
    Surface::start_with(db, locale, Vec::new(), move |s| {
        s.ntfy.server = url.parse().unwrap();
        s.ntfy.topic = ALERTS.to_owned();
        s.ntfy.reply_topic = REPLIES.to_owned();
        s.ntfy.token = Some(SecretString::from("tk_main"));
        s.ntfy.reply_token = Some(SecretString::from("tk_reply_only"));
        s.ntfy.signing_key = Some(SecretString::from(KEY));
    })
    .await
}

/// Posts `body` to the reply topic as a phone would, with the buttons' token.
async fn reply(fake: &FakeNtfy, body: &str) -> u16 {
    let action = serde_json::json!({
        "url": format!("{}{REPLIES}", fake.url),
        "body": body,
        "headers": {"Authorization": "Bearer tk_reply_only"},
    });
    fake.tap(&action).await
}

/// The push of decision `id`, waiting for it.
async fn decision_push(fake: &FakeNtfy, id: i64) -> ulias_tests::fake_ntfy::Published {
    let title = format!("Decision #{id}");
    fake.wait_for(|m| m.topic == ALERTS && m.request["title"] == title, WAIT)
        .await
        .unwrap_or_else(|| panic!("decision #{id} was never pushed: {:?}", fake.published()))
}

async fn answered(store: &Store, id: i64) -> ulias_core::domain::Decision {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let decision = store.decision(DecisionId::new(id)).await.unwrap();
        if decision.status != DecisionStatus::Pending {
            return decision;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "decision #{id} never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_decision_answered_b_from_the_phone_is_applied_once_even_if_the_reply_comes_twice() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    db.store
        .create_decision(&decision("Free disk space on the VPS?"), start_time())
        .await
        .unwrap();
    let s = start(&fake, db).await;

    let push = fake
        .wait_for(
            |m| m.topic == ALERTS && m.request["title"] == "Decision #1",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(push.authorization.as_deref(), Some("Bearer tk_main"));
    assert_eq!(push.request["priority"], 4, "high urgency");
    let actions = push.request["actions"].as_array().unwrap().clone();
    assert_eq!(actions.len(), 3);
    assert_eq!(actions[1]["label"], "B: Run it again");
    let body = actions[1]["body"].as_str().unwrap();
    let signature = body.rsplit(':').next().unwrap();
    assert!(body.starts_with("decision:1:B:"), "{body}");
    assert_eq!(signature.len(), 64, "an HMAC-SHA256 in hex: {body}");
    assert_eq!(
        actions[1]["headers"]["Authorization"],
        "Bearer tk_reply_only"
    );
    assert!(actions[1]["url"].as_str().unwrap().ends_with(REPLIES));

    assert_eq!(fake.tap(&actions[1]).await, 200);
    assert_eq!(fake.tap(&actions[1]).await, 200);
    assert_eq!(fake.tap(&actions[0]).await, 200);

    let decision = answered(s.store(), 1).await;
    assert_eq!(
        (decision.response, decision.responded_by.as_deref()),
        (Some(1), Some("ntfy"))
    );
    s.message_containing(CEO, "\"Run it again\", chosen by ntfy")
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let again = s.store().decision(DecisionId::new(1)).await.unwrap();
    assert_eq!(
        again.response,
        Some(1),
        "the repeat and the late A change nothing"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_reply_stream_resumes_without_losing_an_answer() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    db.store
        .create_decision(&decision("First?"), start_time())
        .await
        .unwrap();
    let s = start(&fake, db).await;
    let first = fake
        .wait_for(|m| m.request["title"] == "Decision #1", WAIT)
        .await
        .unwrap();
    fake.tap(&first.request["actions"][0]).await;
    answered(s.store(), 1).await;

    s.store()
        .create_decision(&decision("Second?"), start_time())
        .await
        .unwrap();
    let second = fake
        .wait_for(|m| m.request["title"] == "Decision #2", WAIT)
        .await
        .unwrap();
    fake.drop_streams();
    fake.tap(&second.request["actions"][2]).await;

    let decision = answered(s.store(), 2).await;
    assert_eq!(
        decision.response,
        Some(2),
        "answered C although the stream was down when it came"
    );
    assert!(fake.streams_opened() >= 2, "the subscriber reconnected");
    let last = fake.on_topic(REPLIES).last().unwrap().id.clone();
    eventually("the cursor reaches the last reply", || async {
        (s.store().cursor("ntfy_replies").await.unwrap() == Some(last.clone())).then_some(())
    })
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn alerts_are_pushed_with_their_priority() {
    use ulias_core::domain::{NewTask, Team};
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    // A task whose agent does not exist fails for good: an incident alert.
    let now = start_time() - TimeDelta::minutes(1);
    let task = NewTask::new(
        "ghost".parse().unwrap(),
        Team::Ops,
        "Haunt the servers",
        now,
    );
    db.store.create_task(&task, now).await.unwrap();
    let s = start(&fake, db).await;

    let alert = fake
        .wait_for(|m| m.topic == ALERTS && m.request["priority"] == 5, WAIT)
        .await
        .unwrap();
    // Rendered from the locale, like the chat's text (English here).
    let title = alert.request["title"].as_str().unwrap();
    assert_eq!(title, "Task #1 (ghost) failed", "{:?}", alert.request);
    s.message_containing(CEO, "🚨").await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_subscription_backs_off_instead_of_retrying_every_second() {
    let ntfy = FakeNtfy::start().await;
    ntfy.refuse_streams(true);
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = start(&ntfy, db).await;

    tokio::time::sleep(Duration::from_secs(7)).await;
    let asked = ntfy.streams_asked();
    // Waits of 1, 2 and 4 s (each up to a quarter longer): at most 4 tries
    // in 7 s, where a retry every second made 7 or 8.
    assert!((2..=4).contains(&asked), "{asked} subscriptions in 7 s");

    ntfy.refuse_streams(false);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while ntfy.streams_opened() == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stream never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    s.stop().await;
}

/// The rows `(actor, role, target)` of refused phone replies.
async fn refused_replies(store: &Store) -> Vec<(String, String, Option<String>)> {
    store.audit_rows("ntfy_reply_refused").await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_with_a_missing_or_wrong_signature_or_naming_another_decision_changes_nothing() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    for title in ["First?", "Second?"] {
        db.store
            .create_decision(&decision(title), start_time())
            .await
            .unwrap();
    }
    let s = start(&fake, db).await;
    let first = decision_push(&fake, 1).await;
    decision_push(&fake, 2).await;
    let signed_a = first.request["actions"][0]["body"].as_str().unwrap();
    let mut wrong = signed_a.to_owned();
    let last = if wrong.ends_with('0') { "1" } else { "0" };
    wrong.replace_range(wrong.len() - 1.., last);

    // Whoever reads the alert topic has decision #1's buttons and the
    // reply token, and tries to answer #2 with them.
    for forged in [
        "decision:2:A".to_owned(),
        wrong,
        signed_a.replacen("decision:1:", "decision:2:", 1),
        signed_a.replacen(":A:", ":C:", 1),
    ] {
        assert_eq!(reply(&fake, &forged).await, 200, "ntfy takes any body");
    }
    eventually("the four replies are refused and logged", || async {
        (refused_replies(s.store()).await.len() == 4).then_some(())
    })
    .await;
    for id in [1, 2] {
        let untouched = s.store().decision(DecisionId::new(id)).await.unwrap();
        assert_eq!(untouched.status, DecisionStatus::Pending, "decision #{id}");
    }
    let targets: Vec<Option<String>> = refused_replies(s.store())
        .await
        .into_iter()
        .map(|(_, _, target)| target)
        .collect();
    assert_eq!(
        targets,
        [Some("2"), Some("1"), Some("2"), Some("1")].map(|t| t.map(str::to_owned))
    );

    // The genuine button still answers its own decision.
    assert_eq!(reply(&fake, signed_a).await, 200);
    assert_eq!(answered(s.store(), 1).await.response, Some(0));
    let pushed = serde_json::to_string(
        &fake
            .published()
            .iter()
            .map(|m| &m.request)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(
        !pushed.contains(KEY),
        "the signing key never leaves the bot"
    );
    assert!(!pushed.contains("tk_main"), "nor the bot's own token");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_after_its_buttons_expired_changes_nothing() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    // No timeout: its buttons are valid 7 days after it was asked, 8 days ago.
    let old = NewDecision {
        timeout_at: None,
        auto_decision: None,
        ..decision("Still there?")
    };
    db.store
        .create_decision(&old, start_time() - TimeDelta::days(8))
        .await
        .unwrap();
    let s = start(&fake, db).await;
    let push = decision_push(&fake, 1).await;

    fake.tap(&push.request["actions"][0]).await;
    eventually("the late answer is refused and logged", || async {
        (refused_replies(s.store()).await.len() == 1).then_some(())
    })
    .await;
    let decision = s.store().decision(DecisionId::new(1)).await.unwrap();
    assert_eq!(decision.status, DecisionStatus::Pending);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_push_refused_while_ntfy_is_down_is_delivered_once_it_is_back() {
    for outage in ["down", "429"] {
        let fake = FakeNtfy::start().await;
        let db = TestDb::sqlite().await;
        db.migrated().await;
        match outage {
            "down" => fake.set_down(true),
            _ => fake.refuse_publishing(true),
        }
        let s = start(&fake, db).await;
        s.store()
            .create_decision(&decision("Free disk space?"), start_time())
            .await
            .unwrap();
        s.message_containing(CEO, "Free disk space?").await;
        eventually("ntfy refuses the push", || async {
            (fake.publishes_refused() > 0).then_some(())
        })
        .await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(fake.on_topic(ALERTS).is_empty(), "{outage}");

        fake.set_down(false);
        fake.refuse_publishing(false);
        // Past the retry's backoff, on the process's clock.
        s.advance(TimeDelta::minutes(10));
        decision_push(&fake, 1).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let pushes = fake.on_topic(ALERTS);
        assert_eq!(
            pushes.len(),
            1,
            "delivered once after a {outage}: {pushes:?}"
        );
        s.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_decision_over_ntfys_limit_is_shortened_and_points_to_the_chat() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let long = NewDecision {
        context_summary: "Disk at 91 %. ".repeat(400),
        ..decision("Free disk space on the VPS?")
    };
    db.store.create_decision(&long, start_time()).await.unwrap();
    let s = start(&fake, db).await;

    let push = decision_push(&fake, 1).await;
    assert!(push.message.len() <= 4096, "{} bytes", push.message.len());
    assert!(
        push.message.ends_with("the rest is in the Telegram chat."),
        "{}",
        push.message
    );
    assert_eq!(push.request["actions"].as_array().unwrap().len(), 3);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answered_or_timed_out_decision_tells_the_phone_how_it_ended() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    db.store
        .create_decision(&decision("Free disk space?"), start_time())
        .await
        .unwrap();
    let soon = NewDecision {
        timeout_at: Some(start_time() + TimeDelta::minutes(30)),
        ..decision("Rotate the logs?")
    };
    db.store.create_decision(&soon, start_time()).await.unwrap();
    let s = start(&fake, db).await;
    let first = decision_push(&fake, 1).await;
    decision_push(&fake, 2).await;

    fake.tap(&first.request["actions"][1]).await;
    let answered = fake
        .wait_for(|m| m.request["title"] == "Decision #1 made", WAIT)
        .await
        .unwrap();
    assert_eq!(answered.message, "\"Run it again\", chosen by ntfy.");
    assert!(
        answered.request["actions"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "no live buttons"
    );
    s.advance(TimeDelta::minutes(31));
    let timed_out = fake
        .wait_for(|m| m.request["title"] == "Decision #2 made", WAIT)
        .await
        .unwrap();
    assert_eq!(
        timed_out.message,
        "No answer in time: \"Cancel the task\" applied."
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let outcomes = fake
        .on_topic(ALERTS)
        .iter()
        .filter(|m| m.request["title"].as_str().unwrap().ends_with("made"))
        .count();
    assert_eq!(outcomes, 2, "each outcome once");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn push_titles_follow_the_chats_language() {
    let fake = FakeNtfy::start().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    db.store
        .create_decision(&decision("Libérer de l'espace ?"), start_time())
        .await
        .unwrap();
    let s = start_in(&fake, db, Locale::Fr).await;

    let push = fake
        .wait_for(|m| m.request["title"] == "Décision #1", WAIT)
        .await;
    assert!(push.is_some(), "{:?}", fake.published());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ceo_who_never_started_the_bot_is_told_by_ntfy_and_decisions_still_reach_the_phone() {
    let fake = FakeNtfy::start().await;
    fake.grant("tk_main", ALERTS, Access::Write);
    fake.grant("tk_main", REPLIES, Access::Read);
    fake.grant("tk_reply_only", REPLIES, Access::Write);
    let db = TestDb::sqlite().await;
    db.migrated().await;
    db.store
        .create_decision(&decision("Free disk space on the VPS?"), start_time())
        .await
        .unwrap();
    let url = fake.url.clone();
    let s = Surface::start_in_world(
        db,
        Locale::En,
        Vec::new(),
        |tg| tg.never_started(CEO),
        move |s| {
            s.ntfy.server = url.parse().unwrap();
            s.ntfy.topic = ALERTS.to_owned();
            s.ntfy.reply_topic = REPLIES.to_owned();
            s.ntfy.token = Some(SecretString::from("tk_main"));
            s.ntfy.reply_token = Some(SecretString::from("tk_reply_only"));
            s.ntfy.signing_key = Some(SecretString::from(KEY));
        },
    )
    .await;

    let told = fake
        .wait_for(
            |m| {
                m.topic == ALERTS
                    && m.request["message"]
                        .as_str()
                        .is_some_and(|t| t.contains("@ulias_test_bot"))
            },
            WAIT,
        )
        .await;
    assert!(told.is_some(), "{:?}", fake.published());
    decision_push(&fake, 1).await;
    s.stop().await;
}
