//! ntfy through the process: alerts and decisions pushed to a loopback ntfy
//! stand-in, decisions answered A/B/C from a phone, each answer applied
//! once, and a dropped reply stream resumed without losing an answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::time::Duration;

use chrono::TimeDelta;
use secrecy::SecretString;
use ulias_core::clock::{Clock, SystemClock};
use ulias_core::domain::{
    DecisionId, DecisionKind, DecisionOption, DecisionStatus, NewDecision, Urgency,
};
use ulias_core::settings::Locale;
use ulias_core::store::Store;
use ulias_tests::db::TestDb;
use ulias_tests::fake_ntfy::FakeNtfy;

use surface::*;

const ALERTS: &str = "ulias-alerts-7f3a";
const REPLIES: &str = "ulias-replies-9c1e";

/// A doubt about a result: three options (accept, run again, cancel).
fn decision(title: &str) -> NewDecision {
    NewDecision {
        context_summary: "Disk at 91 %.".to_owned(),
        recommended: Some(DecisionOption::Rerun),
        urgency: Urgency::High,
        timeout_at: Some(SystemClock.now() + TimeDelta::hours(2)),
        auto_decision: Some(DecisionOption::Cancel),
        ..NewDecision::new(DecisionKind::Doubt {
            agent: "infra".to_owned(),
            title: title.to_owned(),
            confidence_pct: 50,
        })
    }
}

async fn start(ntfy: &FakeNtfy, db: TestDb) -> Surface {
    let url = ntfy.url.clone();
    Surface::start_with(db, Locale::En, Vec::new(), move |s| {
        s.ntfy.server = url.parse().unwrap();
        s.ntfy.topic = ALERTS.to_owned();
        s.ntfy.reply_topic = REPLIES.to_owned();
        s.ntfy.token = Some(SecretString::from("tk_main"));
        s.ntfy.reply_token = Some(SecretString::from("tk_reply_only"));
    })
    .await
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
        .create_decision(&decision("Free disk space on the VPS?"), SystemClock.now())
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
    assert_eq!(actions[1]["body"], "decision:1:B");
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
        .create_decision(&decision("First?"), SystemClock.now())
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
        .create_decision(&decision("Second?"), SystemClock.now())
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
    let now = SystemClock.now() - TimeDelta::minutes(1);
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
