//! Operations live, through the real process (`run` against the fake Bot
//! API and the scripted model): the CEO starts a takeover from the chat,
//! each operation's posts go to its own group, and a group's questions read
//! its own operation's file, an answer naming a foreign address being held
//! for the team.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use serde_json::{Value, json};
use ulias_core::domain::{
    NewOperation, NewValidation, OperationId, OperationStatus, PublicationTarget, ValidationKind,
};
use ulias_core::settings::{GroupSettings, Locale, ModerationMode};
use ulias_core::store::Store;
use ulias_tests::db::TestDb;
use ulias_tests::fake_chain::simulation_chain;

use surface::*;

const CONTRACT: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const OTHER_CONTRACT: &str = "0x2222222222222222222222222222222222222222";
const FOREIGN: &str = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
/// A second community group, for a second operation.
const GROUP_TWO: i64 = -100_556;

/// The Scanner's pre-report: go.
fn scanned() -> Value {
    finish(json!({
        "verdict": "go", "checks": [{"name": "socials", "ok": true, "detail": "the holders still talk"}],
        "reasons": [], "summary": "Dead but clean.\nThe developer sold and left.",
        "confidence": 0.9}))
}

fn community(chat_id: i64, name: &str, operation: i64) -> GroupSettings {
    GroupSettings {
        chat_id,
        name: name.to_owned(),
        mode: ModerationMode::Normal,
        captcha: false,
        official_addresses: Vec::new(),
        operation: Some(operation),
        allowed_domains: vec!["pepe2.fun".to_owned()],
        stop_phrases: Vec::new(),
        raid_joins_per_minute: 50,
        raid_quiet_seconds: 2,
        raid_max_seconds: 3600,
        captcha_seconds: 120,
    }
}

async fn operation(store: &Store, name: &str, contract: &str) -> OperationId {
    let new = NewOperation {
        name: name.to_owned(),
        token_symbol: Some(name.to_uppercase()),
        chain: Some("base".to_owned()),
        official_address: Some(contract.to_owned()),
        official_addresses: Vec::new(),
        j0_at: start_time(),
    };
    let created = store.create_operation(&new, start_time()).await.unwrap();
    store
        .set_operation_status(created.id, OperationStatus::Running, start_time())
        .await
        .unwrap();
    created.id
}

#[tokio::test(flavor = "multi_thread")]
async fn the_ceo_starts_a_takeover_from_the_chat_and_the_same_contract_twice_is_refused() {
    let chain = simulation_chain().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::En, vec![scanned()], |all| {
        chain.point(&mut all.chains).unwrap();
    })
    .await;

    s.tg.send_text(CEO, &ceo(), &format!("/takeover base {CONTRACT} PEP2"));
    let asked = s
        .message_containing(CEO, "Pre-report #1 on PEP2 (base")
        .await;
    let card = eventually("the pre-report's card", || async {
        s.tg.messages(CEO)
            .into_iter()
            .find(|m| m["reply_to_message"]["message_id"] == asked["message_id"])
    })
    .await;
    let card = card["text"].as_str().unwrap().to_owned();
    for part in [
        "✅ GO",
        "liquidity $12000",
        "deployer 2.0 %",
        "top 10 30.0 %",
        "✓ deployer",
        "Dead but clean.",
    ] {
        assert!(
            card.contains(part),
            "{part:?} missing from the card: {card}"
        );
    }
    let offer = s.message_containing(CEO, "Start the takeover?").await;
    assert_eq!(button_data(&offer), ["d:1:0", "d:1:1"]);
    assert!(
        offer["reply_markup"].to_string().contains("⭐ Start"),
        "the verdict recommends Start: {offer}"
    );
    assert!(
        s.store().operations().await.unwrap().is_empty(),
        "nothing starts before the CEO's Start"
    );

    s.tg.press_button(&ceo(), CEO, id_of(&offer), "d:1:0");
    let started = s.message_containing(CEO, "Operation #1 PEP2 started").await;
    assert!(started["text"].as_str().unwrap().contains("steps laid out"));
    let operation = s.store().operation(OperationId::new(1)).await.unwrap();
    assert_eq!(operation.status, OperationStatus::Running);
    assert_eq!(operation.official_address.as_deref(), Some(CONTRACT));
    let steps = s.store().tasks_of_operation(operation.id).await.unwrap();
    assert!(
        steps
            .iter()
            .any(|t| t.step_key.as_deref() == Some("scanner.full_report")),
        "the playbook is laid out from J0"
    );

    s.tg.send_text(CEO, &ceo(), "/ops");
    s.message_containing(CEO, "#1 PEP2 — running, J+0").await;
    s.tg.send_text(CEO, &ceo(), "/op 1");
    s.message_containing(CEO, "Full report: on-chain checks")
        .await;

    s.tg.send_text(
        CEO,
        &ceo(),
        &format!("/takeover base {} PEP2", CONTRACT.to_lowercase()),
    );
    s.message_containing(CEO, "already in operation #1 PEP2 (running)")
        .await;
    assert_eq!(s.store().operations().await.unwrap().len(), 1);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_takeover_asked_in_words_runs_only_once_the_ceo_confirms_it() {
    let mut reading = interpretation("Reprendre PEP2", 0.9, &[]);
    reading["tool_calls"][0]["arguments"]["takeover"] =
        json!({"chain": "base", "address": CONTRACT, "name": "PEP2"});
    let chain = simulation_chain().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::Fr, vec![reading, scanned()], |all| {
        chain.point(&mut all.chains).unwrap();
    })
    .await;

    s.tg.send_text(
        CEO,
        &ceo(),
        &format!("on reprend PEP2 sur base, contrat {CONTRACT}"),
    );
    let asked = s.message_containing(CEO, "Reprendre PEP2 (base").await;
    assert_eq!(button_data(&asked), ["tk:1:1", "tk:1:0"]);
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM objectives").await,
        0,
        "nothing runs on the reading alone"
    );

    s.tg.press_button(&ceo(), CEO, id_of(&asked), "tk:1:1");
    s.message_containing(CEO, "Pré-rapport #1 sur PEP2").await;
    s.message_containing(CEO, "Lancer la reprise ?").await;
    let pressed = s.tg.message(CEO, id_of(&asked)).unwrap();
    assert!(button_data(&pressed).is_empty(), "asked once: {pressed}");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM objectives").await, 1);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bound_groups_anti_spam_knows_its_operations_official_addresses() {
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    let one = operation(store, "One", CONTRACT).await;
    let s = Surface::start_with(db, Locale::En, Vec::new(), |all| {
        // No address in the group's settings: the operation's apply.
        all.telegram.groups = vec![community(GROUP, "PEPE2 community", one.get())];
    })
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();
    let holder = ulias_tests::fake_telegram::FakeUser::new(9002, "Marie");
    let scammer = ulias_tests::fake_telegram::FakeUser::new(9001, "Support Desk");

    s.tg.send_text(
        GROUP,
        &holder,
        &format!("the only contract is {CONTRACT}, right"),
    );
    let scam = s.tg.send_text(
        GROUP,
        &scammer,
        &format!("Migration V2: send your tokens to {FOREIGN} now"),
    );

    let deleted =
        s.tg.wait_for("deleteMessage", |p| p["message_id"] == scam, WAIT)
            .await;
    assert!(deleted.is_some(), "the foreign address is deleted");
    let reminder = s
        .message_containing(GROUP, "the only official address is")
        .await;
    assert!(
        reminder["text"].as_str().unwrap().contains(CONTRACT),
        "the bot names the operation's contract: {reminder}"
    );
    assert_eq!(
        s.tg.calls_of("deleteMessage").len(),
        1,
        "the holder quoting the operation's contract is left alone"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stopping_an_operation_asks_first_and_stops_it_once_confirmed() {
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    let id = operation(store, "Pep", CONTRACT).await;
    let s = Surface::start_on(db, Locale::En, Vec::new()).await;

    s.tg.send_text(CEO, &ceo(), &format!("/stop op{id}"));
    s.message_containing(CEO, "needs your confirmation").await;
    let asked = s
        .message_containing(CEO, "Stop operation #1 Pep for good?")
        .await;
    assert_eq!(
        s.store().operation(id).await.unwrap().status,
        OperationStatus::Running,
        "not before the confirmation"
    );
    s.tg.press_button(&ceo(), CEO, id_of(&asked), "d:1:0");
    s.message_containing(CEO, "Operation #1 Pep stopped").await;
    assert_eq!(
        s.store().operation(id).await.unwrap().status,
        OperationStatus::Stopped
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn each_operations_post_goes_to_its_own_group_whatever_its_payload_names() {
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    let one = operation(store, "One", CONTRACT).await;
    let two = operation(store, "Two", OTHER_CONTRACT).await;
    let s = Surface::start_with(db, Locale::En, Vec::new(), |all| {
        all.telegram.groups = vec![
            community(GROUP, "PEPE2 community", one.get()),
            community(GROUP_TWO, "Second community", two.get()),
        ];
    })
    .await;
    s.tg.add_group(GROUP_TWO, "Second community");
    let post = |operation: OperationId, payload: Value| NewValidation {
        task_id: None,
        operation_id: Some(operation),
        kind: ValidationKind::Post,
        target: PublicationTarget::Telegram,
        payload,
    };
    // The first one's output names the second group: it cannot redirect it.
    s.store()
        .create_validation(
            &post(
                one,
                json!({
                    "tool": "tg_post",
                    "args": {"text": "GM from one", "chat_id": GROUP_TWO},
                    "content": {"kind": "post", "text": "GM from one"}
                }),
            ),
            start_time(),
        )
        .await
        .unwrap();
    s.store()
        .create_validation(
            &post(two, json!({"args": {"text": "GM from two"}})),
            start_time(),
        )
        .await
        .unwrap();

    let first = s.message_containing(TEAM_CHAT, "GM from one").await;
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .contains(&format!("→ Telegram group PEPE2 community ({GROUP})")),
        "the preview shows where it goes: {first}"
    );
    let second = s.message_containing(TEAM_CHAT, "GM from two").await;
    assert!(
        second["text"]
            .as_str()
            .unwrap()
            .contains("→ Telegram group Second community"),
        "{second}"
    );
    for preview in [&first, &second] {
        let approve = button_data(preview).remove(0);
        s.tg.press_button(&teammate(), TEAM_CHAT, id_of(preview), &approve);
    }

    s.message_containing(GROUP, "GM from one").await;
    s.message_containing(GROUP_TWO, "GM from two").await;
    assert!(
        !s.tg
            .sent_texts(GROUP_TWO)
            .iter()
            .any(|t| t.contains("GM from one")),
        "{:?}",
        s.tg.sent_texts(GROUP_TWO)
    );
    assert!(
        !s.tg
            .sent_texts(GROUP)
            .iter()
            .any(|t| t.contains("GM from two"))
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_group_question_reads_its_operations_file_and_a_foreign_address_is_held() {
    let read = json!({"tool_calls": [{"name": "read_file", "arguments": {"section": "scan"}}]});
    let tricked = finish(json!({
        "answer": format!("The new contract after the migration is {FOREIGN}"),
        "sources": ["scan"], "confidence": 0.9}));
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    let one = operation(store, "One", CONTRACT).await;
    let two = operation(store, "Two", OTHER_CONTRACT).await;
    for (operation, story) in [(one, "story of one"), (two, "story of two")] {
        store
            .write_section(
                Some(operation),
                "scan",
                &json!({"story": story}),
                "scanner",
                None,
                start_time(),
            )
            .await
            .unwrap();
    }
    let s = Surface::start_with(db, Locale::En, vec![read, tricked], |all| {
        all.telegram.groups = vec![community(GROUP, "PEPE2 community", one.get())];
    })
    .await;
    s.tg.wait_for("getChatAdministrators", |_| true, WAIT)
        .await
        .unwrap();

    s.tg.send_text(
        GROUP,
        &ulias_tests::fake_telegram::FakeUser::new(9401, "Paul"),
        "@ulias_test_bot is there a new contract after the migration?",
    );

    let held = s.message_containing(TEAM_CHAT, "was held, not sent").await;
    let text = held["text"].as_str().unwrap();
    assert!(text.contains(&FOREIGN.to_lowercase()), "{text}");
    assert!(text.contains("is there a new contract"), "{text}");
    let requests = s.llm.requests();
    let file_read = requests[1].to_string();
    assert!(file_read.contains("story of one"), "{file_read}");
    assert!(!file_read.contains("story of two"), "{file_read}");
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert!(
        !s.tg.sent_texts(GROUP).iter().any(|t| t.contains(FOREIGN)),
        "never sent to the group: {:?}",
        s.tg.sent_texts(GROUP)
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_team_member_turning_validation_off_needs_the_ceo() {
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    let id = operation(store, "Pep", CONTRACT).await;
    let s = Surface::start_on(db, Locale::En, Vec::new()).await;

    s.tg.send_text(TEAM_CHAT, &teammate(), &format!("/validation {id} off"));
    s.message_containing(TEAM_CHAT, "needs the CEO").await;
    let asked = s
        .message_containing(CEO, "bob asks to publish operation #1 Pep's outputs")
        .await;
    assert!(
        s.store().operation(id).await.unwrap().validation_required,
        "still on until the CEO allows it"
    );

    s.tg.press_button(&ceo(), CEO, id_of(&asked), "d:1:0");
    s.message_containing(CEO, "Validation of operation #1's outputs: off")
        .await;
    assert!(!s.store().operation(id).await.unwrap().validation_required);

    s.tg.send_text(TEAM_CHAT, &teammate(), &format!("/validation {id} on"));
    s.message_containing(
        CEO,
        "bob turned the team's validation of operation #1's outputs back on",
    )
    .await;
    assert!(s.store().operation(id).await.unwrap().validation_required);
    s.stop().await;
}
