//! The outbox through the bot: an approved post goes out once, however
//! often Approve is pressed; a post interrupted mid-send is never sent
//! again blindly.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::time::Duration;

use serde_json::json;
use ulias_core::domain::{NewValidation, PublicationStatus, PublicationTarget, ValidationKind};
use ulias_core::settings::{GroupSettings, Locale, ModerationMode};
use ulias_core::store::Store;
use ulias_tests::db::TestDb;

use surface::*;

fn community() -> GroupSettings {
    GroupSettings {
        chat_id: GROUP,
        name: "PEPE2 community".to_owned(),
        mode: ModerationMode::DryRun,
        captcha: false,
        official_addresses: Vec::new(),
        operation: None,
        allowed_domains: Vec::new(),
        stop_phrases: Vec::new(),
        raid_joins_per_minute: 50,
        raid_quiet_seconds: 600,
        raid_max_seconds: 3600,
        captcha_seconds: 120,
    }
}

async fn pinned_post(store: &Store) -> ulias_core::domain::ValidationId {
    let validation = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Pinned,
        target: PublicationTarget::Telegram,
        payload: json!({"tool": "tg_pin", "args": {"text": "Official address: 0x5aAe… — the team never DMs first."}}),
    };
    store
        .create_validation(&validation, start_time())
        .await
        .unwrap()
        .id
}

async fn start(db: TestDb) -> Surface {
    Surface::start_with(db, Locale::Fr, Vec::new(), |s| {
        s.telegram.groups = vec![community()]
    })
    .await
}

fn posts_in_group(s: &Surface) -> Vec<String> {
    s.tg.sent_texts(GROUP)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_post_goes_out_once_however_often_approve_is_pressed() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let id = pinned_post(&db.store).await;
    let s = start(db).await;

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let approve = button_data(&preview)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);

    let post = s.message_containing(GROUP, "Official address").await;
    let pinned =
        s.tg.wait_for(
            "pinChatMessage",
            |p| p["message_id"] == post["message_id"],
            WAIT,
        )
        .await;
    assert!(pinned.is_some(), "a pinned message is pinned");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(posts_in_group(&s).len(), 1, "published once");
    let validation = s.store().validation(id).await.unwrap();
    assert_eq!(
        validation.status,
        ulias_core::domain::ValidationStatus::Approved
    );
    let publication = s
        .store()
        .publication(ulias_core::domain::PublicationId::new(1))
        .await
        .unwrap();
    assert_eq!(publication.status, PublicationStatus::Sent);
    assert_eq!(
        publication.external_id,
        Some(format!("{GROUP}:{}", post["message_id"]))
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_interrupted_mid_send_is_shown_as_unknown_and_sent_again_only_on_request() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let id = pinned_post(&db.store).await;
    // A previous process claimed it half an hour ago and died before
    // recording the result: its claim has expired.
    let then = start_time() - chrono::TimeDelta::minutes(30);
    db.store.approve_validation(id, "bob", then).await.unwrap();
    let claimed = db
        .store
        .claim_publication("ulias-dead", then)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.status, PublicationStatus::Sending);
    let s = start(db).await;

    let alert = s
        .message_containing(TEAM_CHAT, "interrompue pendant l'envoi")
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(posts_in_group(&s).is_empty(), "never re-sent blindly");
    let publication = s.store().publication(claimed.id).await.unwrap();
    assert_eq!(publication.status, PublicationStatus::Unknown);

    let resend = button_data(&alert)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&alert), &resend);

    s.message_containing(GROUP, "Official address").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(posts_in_group(&s).len(), 1);
    assert_eq!(
        s.store().publication(claimed.id).await.unwrap().status,
        PublicationStatus::Sent
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_send_whose_answer_never_comes_ends_unknown_and_send_again_twice_sends_once() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let id = pinned_post(&db.store).await;
    db.store
        .approve_validation(id, "bob", start_time())
        .await
        .unwrap();
    let s = start(db).await;
    // Telegram delivers the post, but its answer is lost on the way back.
    s.tg.swallow_next("sendMessage", 1);

    // teloxide gives up after its 17 s request timeout.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(40);
    let alert = loop {
        if let Some(alert) = s.tg.messages(TEAM_CHAT).into_iter().find(|m| {
            m["text"]
                .as_str()
                .is_some_and(|t| t.contains("interrompue pendant l'envoi"))
        }) {
            break alert;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no unknown-send alert"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let publication = s
        .store()
        .publication(ulias_core::domain::PublicationId::new(1))
        .await
        .unwrap();
    assert_eq!(
        publication.status,
        PublicationStatus::Unknown,
        "it may have gone out: not failed"
    );
    assert_eq!(posts_in_group(&s).len(), 1, "it did go out");

    let resend = button_data(&alert)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&alert), &resend);
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&alert), &resend);

    // The second press is told the first one's send is under way, or
    // (answered after it) already done: never sent a third time.
    eventually("the second press is told", || async {
        s.tg.sent_texts(TEAM_CHAT)
            .into_iter()
            .find(|t| t == "Elle est déjà en cours d'envoi." || t == "Elle est déjà partie.")
    })
    .await;
    eventually("the post sent again", || async {
        (posts_in_group(&s).len() == 2).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(posts_in_group(&s).len(), 2, "sent again once, not twice");
    let edited = s.tg.message(TEAM_CHAT, id_of(&alert)).unwrap();
    assert!(button_data(&edited).is_empty(), "the button is gone");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thread_refused_at_part_two_resumes_at_part_two_when_sent_again() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let thread = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Thread,
        target: PublicationTarget::Telegram,
        payload: json!({"args": {"parts": ["Part one.", "Part two.", "Part three."]}}),
    };
    db.store
        .create_validation(&thread, start_time())
        .await
        .unwrap();
    let s = start(db).await;
    // The group refuses the second message once (a 400, nothing delivered).
    s.tg.refuse_after("sendMessage", GROUP, 1, 1, "message is too long");

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let approve = button_data(&preview)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);
    let failed = s.message_containing(TEAM_CHAT, "non envoyée : ").await;
    assert_eq!(posts_in_group(&s), ["Part one."]);

    let resend = button_data(&failed)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&failed), &resend);
    s.message_containing(GROUP, "Part three.").await;
    tokio::time::sleep(Duration::from_secs(1)).await;

    assert_eq!(
        posts_in_group(&s),
        ["Part one.", "Part two.", "Part three."],
        "part one is not sent twice"
    );
    let publication = s
        .store()
        .publication(ulias_core::domain::PublicationId::new(1))
        .await
        .unwrap();
    assert_eq!(publication.status, PublicationStatus::Sent);
    assert_eq!(s.store().sent_parts(publication.id).await.unwrap().len(), 3);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_telegram_refuses_to_pin_is_recorded_as_sent_and_never_sent_again() {
    use ulias_tests::fake_telegram::Right;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    pinned_post(&db.store).await;
    let s = Surface::start_in_world(
        db,
        Locale::Fr,
        Vec::new(),
        |tg| tg.add_bot_admin(GROUP, &[Right::DeleteMessages, Right::RestrictMembers]),
        |all| all.telegram.groups = vec![community()],
    )
    .await;

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let approve = button_data(&preview)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);

    s.message_containing(TEAM_CHAT, "refusé de l'épingler")
        .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        posts_in_group(&s).len(),
        1,
        "sent once, not again for the pin"
    );
    let publication = s
        .store()
        .publication(ulias_core::domain::PublicationId::new(1))
        .await
        .unwrap();
    assert_eq!(publication.status, PublicationStatus::Sent);
    s.stop().await;
}
