//! The Telegram surface end to end: the library's `run(settings, clock,
//! shutdown)` against the loopback fake of the Bot API, over real HTTP, with
//! a scripted model server and a real SQLite store.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::time::Duration;

use chrono::TimeDelta;
use secrecy::SecretString;
use serde_json::json;
use ulias_core::domain::{
    DecisionKind, DecisionOption, NewDecision, NewTask, NewValidation, ObjectiveId,
    PublicationTarget, TaskOutcome, TaskStatus, Team, Urgency, ValidationId, ValidationKind,
    ValidationStatus,
};
use ulias_core::settings::Locale;
use ulias_core::store::Store;
use ulias_tests::db::TestDb;

use surface::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_ceo_text_becomes_an_objective_confirmed_with_its_id() {
    let s = Surface::start(
        Locale::Fr,
        vec![interpretation("Vérifier les backups", 0.85, &[])],
    )
    .await;

    s.tg.send_text(CEO, &ceo(), "vérifie les backups de cette nuit");

    let confirmation = s.message_containing(CEO, "Objectif #1 créé").await;
    assert!(
        confirmation["text"]
            .as_str()
            .unwrap()
            .contains("Vérifier les backups")
    );
    let objective = s.store().objective(ObjectiveId::new(1)).await.unwrap();
    assert_eq!(objective.title, "Vérifier les backups");
    let interactions = s.store().recent_interactions(5).await.unwrap();
    assert_eq!(
        interactions[0].raw_message,
        "vérifie les backups de cette nuit"
    );
    assert_eq!(interactions[0].objective_id, Some(objective.id));
    assert!(
        !s.tg.calls_of("sendChatAction").is_empty(),
        "typing… while interpreting"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_short_unsure_text_asks_and_the_pressed_guess_becomes_the_objective() {
    let reading = interpretation(
        "Backups",
        0.4,
        &["Vérifier les backups", "Relancer le backup"],
    );
    let s = Surface::start(Locale::Fr, vec![reading]).await;

    s.tg.send_text(CEO, &ceo(), "backups ?");

    let question = s.message_containing(CEO, "Je ne suis pas sûr").await;
    let buttons = button_data(&question);
    assert_eq!(buttons.len(), 2, "{question}");
    assert!(
        s.store()
            .objectives_with_status(ulias_core::domain::ObjectiveStatus::Pending)
            .await
            .unwrap()
            .is_empty()
    );
    s.tg.press_button(&ceo(), CEO, id_of(&question), &buttons[1]);

    s.message_containing(CEO, "Objectif #1 créé : Relancer le backup")
        .await;
    let interaction = &s.store().recent_interactions(1).await.unwrap()[0];
    assert_eq!(interaction.objective_id, Some(ObjectiveId::new(1)));
    assert!(
        interaction
            .feedback
            .as_deref()
            .unwrap()
            .contains("Relancer le backup")
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn commands_are_answered_in_private_and_in_the_team_chat_only() {
    let s = Surface::start(Locale::En, Vec::new()).await;
    const ELSEWHERE: i64 = -100_999;
    s.tg.add_group(ELSEWHERE, "Some other group");

    s.tg.send_text(ELSEWHERE, &teammate(), "/status");
    s.tg.send_text(TEAM_CHAT, &teammate(), "/status");

    s.message_containing(TEAM_CHAT, "GPU").await;
    eventually("both commands delivered", || async {
        (s.tg.pending_updates() == 0).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(
        s.tg.sent_texts(ELSEWHERE).is_empty(),
        "nothing said in front of another group"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stranger_flooding_the_bot_is_audited_up_to_the_allowance_only() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::Fr, Vec::new(), |settings| {
        settings.limits.stranger_messages_per_hour = 3;
    })
    .await;

    for n in 0..10 {
        s.tg.send_text(STRANGER, &stranger(), &format!("hello {n}"));
    }
    s.message_containing(STRANGER, "réservé à l'équipe").await;
    eventually("every message delivered to the bot", || async {
        (s.tg.pending_updates() == 0).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let rows = s
        .store()
        .audit_rows("private_message_refused")
        .await
        .unwrap();
    assert_eq!(rows.len(), 3, "audited up to the allowance");
    assert_eq!(s.tg.sent_texts(STRANGER).len(), 1, "one refusal only");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stranger_gets_one_refusal_nothing_else_and_an_audit_row() {
    let s = Surface::start(Locale::Fr, Vec::new()).await;

    s.tg.send_text(STRANGER, &stranger(), "send me the admin keys");
    s.message_containing(STRANGER, "réservé à l'équipe").await;
    s.tg.send_text(STRANGER, &stranger(), "hello??");
    let audited = async {
        loop {
            let rows = s
                .store()
                .audit_rows("private_message_refused")
                .await
                .unwrap();
            if rows.len() == 2 {
                return rows;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let rows = tokio::time::timeout(WAIT, audited).await.unwrap();

    assert_eq!(rows[0].0, STRANGER.to_string());
    assert_eq!(rows[0].1, "unknown");
    assert_eq!(s.tg.sent_texts(STRANGER).len(), 1, "one refusal only");
    assert_eq!(s.llm.played(), 0, "no model call for a stranger");
    assert!(s.store().recent_interactions(5).await.unwrap().is_empty());
    s.stop().await;
}

async fn pending_validation(store: &Store) -> ValidationId {
    let validation = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Thread,
        target: PublicationTarget::X,
        payload: json!({"step": "cm.comeback_thread", "args": {"parts": ["We are back.", "Here is the plan."]}}),
    };
    store
        .create_validation(&validation, start_time())
        .await
        .unwrap()
        .id
}

#[tokio::test(flavor = "multi_thread")]
async fn approve_pressed_twice_at_once_publishes_once_and_a_stranger_cannot_press() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let id = pending_validation(&db.store).await;
    let s = Surface::start_on(db, Locale::Fr, Vec::new()).await;

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let text = preview["text"].as_str().unwrap();
    assert!(
        text.contains("1/2 We are back.") && text.contains("2/2 Here is the plan."),
        "{text}"
    );
    let approve = button_data(&preview)[0].clone();
    s.tg.press_button(&stranger(), TEAM_CHAT, id_of(&preview), &approve);
    s.tg.wait_for("answerCallbackQuery", |p| p["show_alert"] == true, WAIT)
        .await
        .unwrap();
    assert_eq!(
        s.store().validation(id).await.unwrap().status,
        ValidationStatus::Pending
    );

    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);

    s.message_containing(TEAM_CHAT, "Approuvé par bob").await;
    // Presses are answered at once; what the second one found is said after.
    s.message_containing(TEAM_CHAT, "Déjà traité.").await;
    assert_eq!(
        s.store().publication_counts().await.unwrap(),
        (1, 0),
        "published once"
    );
    let approvals = s.store().audit_rows("validation_approved").await.unwrap();
    assert_eq!(approvals.len(), 1);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn reject_asks_why_by_force_reply_and_the_step_runs_again_with_the_reason() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let store = &db.store;
    let now = start_time() - TimeDelta::minutes(5);
    let task = NewTask::new(
        "analyst".parse().unwrap(),
        Team::Research,
        "Weekly trends",
        now,
    );
    let task = store.create_task(&task, now).await.unwrap();
    store.promote_ready_tasks(now).await.unwrap();
    store
        .claim_next_task("earlier", now, TimeDelta::hours(1))
        .await
        .unwrap();
    store
        .block_task(task.id, "earlier", &TaskOutcome::default(), now)
        .await
        .unwrap();
    let validation = NewValidation {
        task_id: Some(task.id),
        operation_id: None,
        kind: ValidationKind::Post,
        target: PublicationTarget::X,
        payload: json!({"args": {"text": "Trends are up 20%!!!"}}),
    };
    let id = store.create_validation(&validation, now).await.unwrap().id;
    let rerun = json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "Trends up 20%", "findings": [], "confidence": 0.9}}]});
    let s = Surface::start_on(db, Locale::Fr, vec![rerun]).await;

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let reject = button_data(&preview)[1].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &reject);
    let prompt = s.message_containing(TEAM_CHAT, "Pourquoi rejeter").await;
    let force =
        s.tg.wait_for(
            "sendMessage",
            |p| p["reply_markup"]["force_reply"] == true,
            WAIT,
        )
        .await;
    assert!(force.is_some(), "the reason is asked by force-reply");
    s.tg.reply_text(
        TEAM_CHAT,
        &teammate(),
        "Trop d'exclamations",
        id_of(&prompt),
    );

    s.message_containing(TEAM_CHAT, "Rejet enregistré").await;
    let validation = s.store().validation(id).await.unwrap();
    assert_eq!(validation.status, ValidationStatus::Rejected);
    assert_eq!(
        validation.rejection_reason.as_deref(),
        Some("Trop d'exclamations")
    );
    let task = s.store().task(task.id).await.unwrap();
    assert_eq!(task.input["rejection_reason"], "Trop d'exclamations");
    assert_ne!(task.status, TaskStatus::Blocked, "the step runs again");
    s.message_containing(TEAM_CHAT, "Rejeté par bob").await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_decision_reaching_its_timeout_is_applied_and_announced() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let decision = NewDecision {
        context_summary: "Le disque est plein à 91 %.".to_owned(),
        recommended: Some(DecisionOption::Confirm),
        urgency: Urgency::High,
        timeout_at: Some(start_time() + TimeDelta::minutes(30)),
        auto_decision: Some(DecisionOption::Refuse),
        ..NewDecision::new(DecisionKind::Confirmation {
            tool: "logs_cleanup".into(),
            arguments: serde_json::json!({"older_than_days": 60}),
        })
    };
    db.store
        .create_decision(&decision, start_time())
        .await
        .unwrap();
    let s = Surface::start_on(db, Locale::Fr, Vec::new()).await;

    let shown = s.message_containing(CEO, "Décision #1").await;
    assert_eq!(button_data(&shown), ["d:1:0", "d:1:1"]);
    assert!(
        shown["reply_markup"].to_string().contains("⭐ Lancer"),
        "the recommended option is marked"
    );
    s.advance(TimeDelta::minutes(31));

    s.message_containing(
        CEO,
        "⏱ Décision #1 : pas de réponse à temps, « Ne pas lancer » appliqué.",
    )
    .await;
    s.message_containing(CEO, "→ « Ne pas lancer », choisi par timeout")
        .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_429_delays_the_message_until_retry_after_and_loses_nothing() {
    let s = Surface::start(
        Locale::Fr,
        vec![interpretation("Vérifier les backups", 0.85, &[])],
    )
    .await;
    s.tg.wait_for("setMyCommands", |_| true, WAIT)
        .await
        .unwrap();
    s.tg.fail_next("sendMessage", 1, 2);

    s.tg.send_text(CEO, &ceo(), "vérifie les backups de cette nuit");

    s.message_containing(CEO, "Objectif #1 créé").await;
    // The refused send may be another message than the confirmation (one
    // to the team chat): whichever it was, it comes again, not before 2 s.
    let refused =
        s.tg.calls()
            .into_iter()
            .find(|c| c.method.eq_ignore_ascii_case("sendMessage") && c.refused)
            .expect("one send was refused with 429");
    let same = |p: &serde_json::Value| {
        p["text"] == refused.params["text"] && p["chat_id"] == refused.params["chat_id"]
    };
    s.tg.wait_for("sendMessage", same, WAIT)
        .await
        .expect("the refused message is sent again");
    let delivered =
        s.tg.calls()
            .into_iter()
            .find(|c| c.method.eq_ignore_ascii_case("sendMessage") && !c.refused && same(&c.params))
            .unwrap();
    assert!(
        delivered.at.duration_since(refused.at) >= Duration::from_secs(2),
        "sent again after retry_after"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn status_answers_in_french_by_default_and_in_english_when_the_locale_is_en() {
    for (locale, expected) in [
        (Locale::Fr, "Objectifs en cours : 0"),
        (Locale::En, "Objectives in progress: 0"),
    ] {
        let s = Surface::start(locale, Vec::new()).await;
        s.tg.send_text(CEO, &ceo(), "/status");
        let status = s.message_containing(CEO, expected).await;
        assert!(status["text"].as_str().unwrap().contains("GPU"));
        let menus = s.tg.calls_of("setMyCommands");
        assert_eq!(menus.len(), 2, "the menu in French (default) and English");
        assert!(menus.iter().any(|c| c.params["language_code"] == "en"));
        s.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_confirmation_is_edited_as_the_objective_progresses() {
    let plan = finish(json!({
        "team": "research", "rationale": "Two looks, one after the other.", "escalate": null,
        "confidence": 0.9, "tasks": [
            {"key": "a", "agent": "analyst", "title": "Read the logs", "description": "Errors",
             "pipeline": "direct", "depends_on": [], "priority": 6},
            {"key": "b", "agent": "analyst", "title": "Compare with last week", "description": "Trend",
             "pipeline": "direct", "depends_on": ["a"], "priority": 6}]}));
    let lessons = finish(json!({"lessons": [], "confidence": 0.8}));
    let turns = vec![
        interpretation("Analyser les erreurs", 0.85, &[]),
        plan,
        report("12 errors"),
        report("down 30%"),
        lessons,
    ];
    let s = Surface::start(Locale::Fr, turns).await;

    s.tg.send_text(
        CEO,
        &ceo(),
        "regarde les erreurs de la semaine dans les logs",
    );

    let confirmation = s.message_containing(CEO, "Objectif #1 créé").await;
    let edited =
        s.tg.wait_for(
            "editMessageText",
            |p| {
                p["message_id"] == confirmation["message_id"]
                    && p["text"].as_str().unwrap_or_default().contains("terminé ✓")
            },
            WAIT,
        )
        .await;
    assert!(edited.is_some(), "edits: {:?}", s.tg.sent_texts(CEO));
    let texts = s.tg.sent_texts(CEO);
    assert!(
        texts.iter().any(|t| t.contains("2/3 ✓")),
        "a count of done tasks was shown: {texts:?}"
    );
    assert!(
        !texts.iter().any(|t| t.starts_with("ℹ")),
        "the end shows in place, not as a second message: {texts:?}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_correction_fixes_the_last_objective_and_is_kept_as_feedback() {
    let escalate = finish(
        json!({"team": "ops", "rationale": "Unclear.", "escalate": "Which logs?",
        "confidence": 0.3, "tasks": [{"key": "a", "agent": "analyst", "title": "t", "description": "d",
        "pipeline": "direct", "depends_on": [], "priority": 5}]}),
    );
    let turns = vec![
        interpretation("Vérifier les backups", 0.85, &[]),
        escalate,
        interpretation("Vérifier les logs d'authentification", 0.9, &[]),
    ];
    let s = Surface::start(Locale::Fr, turns).await;
    s.tg.send_text(CEO, &ceo(), "vérifie les backups de cette nuit");
    s.message_containing(CEO, "Objectif #1 créé").await;
    let planned = async {
        while s.llm.played() < 2 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(WAIT, planned).await.unwrap();

    s.tg.send_text(
        CEO,
        &ceo(),
        "non, je voulais dire les logs d'authentification",
    );

    s.message_containing(
        CEO,
        "Objectif #1 corrigé : Vérifier les logs d'authentification",
    )
    .await;
    let objective = s.store().objective(ObjectiveId::new(1)).await.unwrap();
    assert_eq!(objective.title, "Vérifier les logs d'authentification");
    let first = s
        .store()
        .recent_interactions(5)
        .await
        .unwrap()
        .into_iter()
        .last()
        .unwrap();
    assert_eq!(
        first.feedback.as_deref(),
        Some("non, je voulais dire les logs d'authentification")
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_public_log_channel_gets_batches_with_costs_and_the_running_total() {
    use ulias_core::domain::{LogKind, LogScope, NewLogEntry, NewOperation};
    use ulias_core::money::Usd;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let now = start_time();
    let operation = db
        .store
        .create_operation(
            &NewOperation {
                name: "PEPE2".into(),
                token_symbol: None,
                chain: None,
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: now,
            },
            now,
        )
        .await
        .unwrap();
    for (summary, micros) in [
        ("scanner turn 1: called read_file", 1_200),
        ("scanner turn 2: finished", 3_400),
    ] {
        let scope = LogScope {
            operation_id: Some(operation.id),
            agent: Some("scanner".into()),
            ..LogScope::default()
        };
        let entry = NewLogEntry {
            public: true,
            cost: Usd::from_micros(micros),
            ..NewLogEntry::event(scope, LogKind::ModelCall, summary)
        };
        db.store.append_log(&entry, now).await.unwrap();
    }
    let private = NewLogEntry::event(
        LogScope::default(),
        LogKind::System,
        "internal housekeeping",
    );
    db.store.append_log(&private, now).await.unwrap();
    let s = Surface::start_on(db, Locale::Fr, Vec::new()).await;

    let batch = s.message_containing(LOG_CHANNEL, "Journal public").await;
    let text = batch["text"].as_str().unwrap();
    assert!(
        text.contains("• scanner : scanner turn 1: called read_file — $0.0012"),
        "{text}"
    );
    assert!(
        text.contains("scanner turn 2: finished — $0.0034"),
        "{text}"
    );
    assert!(text.contains("Total : $0.0046"), "{text}");
    assert!(!text.contains("housekeeping"), "only public rows");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        s.tg.sent_texts(LOG_CHANNEL).len(),
        1,
        "each row is posted once"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn in_webhook_mode_updates_come_by_https_post_and_need_the_secret() {
    use ulias_core::settings::{UpdateMode, WebhookSettings};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::En, Vec::new(), |settings| {
        settings.telegram.mode = UpdateMode::Webhook;
        settings.telegram.webhook = Some(WebhookSettings {
            listen: format!("127.0.0.1:{port}").parse().unwrap(),
            public_url: "https://bot.example.org/telegram".parse().unwrap(),
            secret_token: Some(SecretString::from("s3cret-token")),
        });
    })
    .await;
    let registered = s.tg.wait_for("setWebhook", |_| true, WAIT).await.unwrap();
    assert_eq!(registered["url"], "https://bot.example.org/telegram");
    assert_eq!(registered["secret_token"], "s3cret-token");
    let asked: Vec<&str> = registered["allowed_updates"]
        .as_array()
        .expect("the webhook names the updates it wants")
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    for kind in [
        "message",
        "edited_message",
        "callback_query",
        "chat_member",
        "my_chat_member",
    ] {
        assert!(
            asked.contains(&kind),
            "{kind} is asked for as in polling: {asked:?}"
        );
    }

    let update = json!({"update_id": 7, "message": {
        "message_id": 70, "date": 1_764_000_000,
        "chat": {"id": CEO, "type": "private", "first_name": "Alice"},
        "from": {"id": CEO, "is_bot": false, "first_name": "Alice", "username": "alice"},
        "text": "/status", "entities": [{"type": "bot_command", "offset": 0, "length": 7}]}});
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/telegram");
    let forged = client
        .post(&url)
        .header("content-type", "application/json")
        .header("X-Telegram-Bot-Api-Secret-Token", "wrong")
        .body(update.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        forged.status().as_u16(),
        401,
        "a post without the secret is refused"
    );
    let genuine = client
        .post(&url)
        .header("content-type", "application/json")
        .header("X-Telegram-Bot-Api-Secret-Token", "s3cret-token")
        .body(update.to_string())
        .send()
        .await
        .unwrap();
    assert!(genuine.status().is_success());

    s.message_containing(CEO, "Objectives in progress: 0").await;
    assert_eq!(
        s.tg.sent_texts(CEO).len(),
        1,
        "the forged update did nothing"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_ceo_turns_an_operations_validation_off_and_it_is_audited() {
    use ulias_core::domain::{NewOperation, OperationId};
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let now = start_time();
    let new = NewOperation {
        name: "PEPE2".into(),
        token_symbol: None,
        chain: None,
        official_address: None,
        official_addresses: Vec::new(),
        j0_at: now,
    };
    db.store.create_operation(&new, now).await.unwrap();
    let s = Surface::start_on(db, Locale::Fr, Vec::new()).await;

    // A team member's request would be a decision for the CEO (see the
    // operations tests); the CEO's own is applied.
    s.tg.send_text(CEO, &ceo(), "/validation 1 off");

    s.message_containing(CEO, "opération #1 : désactivée").await;
    assert!(
        !s.store()
            .operation(OperationId::new(1))
            .await
            .unwrap()
            .validation_required
    );
    let audit = s
        .store()
        .audit_rows("validation_required_changed")
        .await
        .unwrap();
    assert_eq!(
        audit,
        [(CEO.to_string(), "ceo".to_owned(), Some("1".to_owned()))]
    );
    s.tg.send_text(CEO, &ceo(), "/validation 1 maybe");
    s.message_containing(CEO, "Usage : /validation").await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_press_is_answered_before_its_work_is_done() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    pending_validation(&db.store).await;
    let s = Surface::start_on(db, Locale::Fr, Vec::new()).await;
    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let approve = button_data(&preview)[0].clone();

    let query =
        s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);
    s.message_containing(TEAM_CHAT, "Approuvé par bob").await;

    let calls = s.tg.calls();
    let answered = calls
        .iter()
        .position(|c| c.method == "answerCallbackQuery" && c.params["callback_query_id"] == query)
        .expect("the press is answered");
    let edited = calls
        .iter()
        .position(|c| {
            c.method == "editMessageText"
                && c.params["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Approuvé par bob"))
        })
        .expect("the preview shows who approved");
    assert!(
        answered < edited,
        "answered at {answered}, edited at {edited}"
    );
    s.stop().await;
}

/// The preview is in the chat (and pressed) before Telegram's answer to
/// its `sendMessage` reaches the process, which stores where the preview
/// is only then: CI saw "Approuvé par bob" never shown under load.
#[tokio::test(flavor = "multi_thread")]
async fn a_preview_pressed_before_its_send_is_answered_still_shows_who_approved() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    pending_validation(&db.store).await;
    let s = Surface::start_in_world(
        db,
        Locale::Fr,
        Vec::new(),
        |tg| tg.answer_late("sendMessage", 1, Duration::from_secs(3)),
        |_| {},
    )
    .await;
    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let approve = button_data(&preview)[0].clone();

    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);

    let shown = s.message_containing(TEAM_CHAT, "Approuvé par bob").await;
    assert_eq!(
        id_of(&shown),
        id_of(&preview),
        "the preview itself is edited"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_album_with_an_unreachable_image_is_shown_as_text_and_the_next_validation_follows() {
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let gone = format!("http://{}/", dead.local_addr().unwrap());
    drop(dead);
    let db = TestDb::sqlite().await;
    db.migrated().await;
    for (kind, payload) in [
        (
            ValidationKind::Album,
            json!({"step": "designer.kit", "args": {"images": [format!("{gone}a.png"), format!("{gone}b.png")], "caption": "Brand kit"}}),
        ),
        (
            ValidationKind::Post,
            json!({"step": "cm.announce", "args": {"text": "We are live"}}),
        ),
    ] {
        let validation = NewValidation {
            task_id: None,
            operation_id: None,
            kind,
            target: PublicationTarget::Telegram,
            payload,
        };
        db.store
            .create_validation(&validation, start_time())
            .await
            .unwrap();
    }

    let s = Surface::start_on(db, Locale::Fr, Vec::new()).await;

    let album = s.message_containing(TEAM_CHAT, "Validation #1").await;
    assert!(
        !button_data(&album).is_empty(),
        "the album can still be decided"
    );
    s.message_containing(TEAM_CHAT, "Validation #2").await;
    let refused =
        s.tg.calls()
            .into_iter()
            .filter(|c| c.method == "sendMediaGroup" && c.refused)
            .count();
    assert_eq!(refused, 1, "Telegram could not fetch the images");
    s.stop().await;
}
