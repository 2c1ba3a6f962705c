//! The community vote through the process: the approved poll goes out as a
//! native Telegram poll in the operation's group and as an X poll; the
//! votes come back (Telegram `poll` updates, X poll results) and are
//! summed by the vote step; a tie goes to the X votes, then to the team's
//! buttons; the outcome is in `/op` and in the operation file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use secrecy::SecretString;
use serde_json::json;
use ulias_bot::x::{Grant, TokenVault};
use ulias_core::domain::{
    NewTask, NewValidation, OperationId, PollPlatform, PublicationTarget, TaskStatus, Team,
    ValidationKind,
};
use ulias_core::settings::Locale;
use ulias_core::store::Store;
use ulias_tests::db::TestDb;
use ulias_tests::fake_telegram::FakeUser;
use ulias_tests::fake_x::FakeX;

use surface::*;

const USER_TOKEN: &str = "user-token-pepe2";

fn key() -> SecretString {
    SecretString::from("cd".repeat(32))
}

/// A running operation with its group and its X account.
async fn operation(db: &TestDb) -> OperationId {
    let store = &db.store;
    let op = surface::running_operation(store, "PEPE2").await;
    store
        .bind_group(GROUP, op, "bob", start_time())
        .await
        .unwrap();
    let grant = Grant {
        access_token: USER_TOKEN,
        refresh_token: None,
        expires_at: None,
    };
    let account = TokenVault::new(Some(&key()))
        .unwrap()
        .seal_account("pepe2", "42", &grant)
        .unwrap();
    store.save_x_account(&account, start_time()).await.unwrap();
    store.bind_account("pepe2", op, start_time()).await.unwrap();
    op
}

/// The Designer's poll, approved for both platforms.
async fn approved_polls(store: &Store, op: OperationId) {
    let content = json!({"kind": "poll", "question": "Which direction?",
                         "options": ["Neon", "Retro", "Zen"]});
    for target in [PublicationTarget::Telegram, PublicationTarget::X] {
        let validation = NewValidation {
            task_id: None,
            operation_id: Some(op),
            kind: ValidationKind::Poll,
            target,
            payload: json!({"tool": "poll_create", "content": content}),
        };
        let id = store
            .create_validation(&validation, start_time())
            .await
            .unwrap()
            .id;
        store
            .approve_validation(id, "bob", start_time())
            .await
            .unwrap();
    }
}

async fn start(x: &FakeX, db: TestDb) -> Surface {
    let url = x.url.clone();
    Surface::start_with(db, Locale::Fr, Vec::new(), move |s| {
        s.x.api_url = url.parse().unwrap();
        s.x.token_key = Some(key());
        s.x.mentions_poll_seconds = 1;
    })
    .await
}

/// Both polls out: the Telegram poll's id and the X post's id.
async fn polls_out(s: &Surface, x: &FakeX) -> (String, String) {
    let telegram = eventually("the Telegram poll is sent", || async {
        s.tg.calls_of("sendPoll").first().map(|call| {
            call.answer["result"]["poll"]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
    })
    .await;
    let post = eventually("the X poll is posted", || async {
        x.posts()
            .iter()
            .find(|p| p.poll.is_some())
            .map(|p| p.id.clone())
    })
    .await;
    (telegram, post)
}

async fn counted(s: &Surface, op: OperationId, telegram: &[u64], x: &[u64]) {
    eventually("both platforms' votes are stored", || async {
        let polls = s.store().polls_of_operation(op).await.unwrap();
        let of = |platform| {
            polls
                .iter()
                .find(|p| p.platform == platform)
                .map(|p| p.counts.clone())
        };
        (of(PollPlatform::Telegram).as_deref() == Some(telegram)
            && of(PollPlatform::X).as_deref() == Some(x))
        .then_some(())
    })
    .await;
}

/// The playbook's vote step, due now.
async fn vote_step(store: &Store, op: OperationId) -> ulias_core::domain::TaskId {
    let mut task = NewTask::new(
        "system".parse().unwrap(),
        Team::Takeover,
        "Count the community vote",
        start_time(),
    );
    task.operation_id = Some(op);
    task.kind = Some("vote".into());
    task.input = json!({"action": "vote_count"});
    store.create_task(&task, start_time()).await.unwrap().id
}

fn voters(n: i64) -> Vec<FakeUser> {
    (0..n)
        .map(|i| FakeUser::new(5000 + i, format!("Voter {i}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn votes_from_telegram_and_x_are_summed_and_a_tie_goes_to_the_x_votes() {
    let x = FakeX::start(USER_TOKEN).await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let op = operation(&db).await;
    approved_polls(&db.store, op).await;
    let s = start(&x, db).await;

    let (telegram, post) = polls_out(&s, &x).await;
    let sent = &s.tg.calls_of("sendPoll")[0];
    assert_eq!(
        sent.params["chat_id"],
        json!(GROUP),
        "in the operation's group"
    );
    let people = voters(3);
    for (voter, option) in people.iter().zip([0, 0, 1]) {
        s.tg.poll_answer(&telegram, voter, &[option]);
    }
    x.set_votes(&post, &[0, 1, 0]);
    counted(&s, op, &[2, 1, 0], &[0, 1, 0]).await;

    let step = vote_step(s.store(), op).await;
    let done = eventually("the vote step completes", || async {
        let task = s.store().task(step).await.unwrap();
        (task.status == TaskStatus::Completed).then_some(task)
    })
    .await;
    assert_eq!(
        done.result.as_ref().unwrap()["winner"],
        json!("Retro"),
        "2–2, and X says Retro"
    );
    let file = s
        .store()
        .latest_section(Some(op), "vote")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(file.content["winner"], json!("Retro"));
    assert_eq!(file.content["totals"], json!([2, 2, 0]));
    assert_eq!(file.content["decided_by"], json!("x_votes"));

    s.tg.send_text(CEO, &ceo(), &format!("/op {}", op.get()));
    let shown = s.message_containing(CEO, "Vote : Retro").await;
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .contains("égalité départagée par les voix X"),
        "{shown}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tie_on_x_too_is_decided_by_the_team_with_buttons_once() {
    let x = FakeX::start(USER_TOKEN).await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let op = operation(&db).await;
    approved_polls(&db.store, op).await;
    let s = start(&x, db).await;

    let (telegram, post) = polls_out(&s, &x).await;
    let people = voters(2);
    for (voter, option) in people.iter().zip([0, 1]) {
        s.tg.poll_answer(&telegram, voter, &[option]);
    }
    x.set_votes(&post, &[1, 1, 0]);
    counted(&s, op, &[1, 1, 0], &[1, 1, 0]).await;
    let step = vote_step(s.store(), op).await;

    let asked = s
        .message_containing(TEAM_CHAT, "à égalité, sur X aussi")
        .await;
    let buttons = button_data(&asked);
    assert_eq!(buttons.len(), 2, "one button per tied option: {buttons:?}");
    assert_eq!(
        s.store().task(step).await.unwrap().status,
        TaskStatus::Blocked,
        "the step waits for the team"
    );
    // Two members press at once, before the buttons go.
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&asked), &buttons[1]);
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&asked), &buttons[0]);
    s.message_containing(TEAM_CHAT, "Retro, choisi par").await;
    s.message_containing(TEAM_CHAT, "déjà tranché").await;
    eventually("the vote step completes", || async {
        (s.store().task(step).await.unwrap().status == TaskStatus::Completed).then_some(())
    })
    .await;
    let outcome = s.store().latest_vote_outcome(op).await.unwrap().unwrap();
    assert_eq!(
        outcome.winner_label(),
        Some("Retro"),
        "the first press counts"
    );
    s.stop().await;
}
