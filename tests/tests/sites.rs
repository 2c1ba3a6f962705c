//! Sites: every template builds from fixture data and passes `site_check`;
//! a wrong address or a broken link fails the check, and a bundle whose
//! latest check failed (or that was never checked) is never proposed for
//! publication.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::publications::Content;
use ulias_agents::runner::recorded_tool_results;
use ulias_agents::site::{
    self, CheckedProblem, SiteError, SiteFields, SiteOperation, TEMPLATE_NAMES,
};
use ulias_agents::tools::{ToolRegistry, Toolbox};
use ulias_core::clock::Clock;
use ulias_core::domain::{
    NewOperation, NewTask, OperationStatus, Task, TaskStatus, ValidationKind,
};
use ulias_tests::fake_chain::offline_reader;
use ulias_tests::harness::Harness;

const FIELDS: &str = include_str!("../../fixtures/sites/pepe2.json");
const OFFICIAL: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

fn fields() -> SiteFields {
    serde_json::from_str(FIELDS).unwrap()
}

fn operation() -> SiteOperation {
    SiteOperation {
        id: 7,
        name: "PEPE2".into(),
        ticker: "PEP2".into(),
        chain: "base".into(),
        api: Some("https://api.example.org".into()),
    }
}

#[test]
fn every_template_builds_from_fixture_data_and_passes_its_check() {
    let data = tempfile::tempdir().unwrap();
    for (index, name) in TEMPLATE_NAMES.iter().enumerate() {
        let bundle = site::build(data.path(), name, &fields(), &operation()).unwrap();

        assert_eq!(bundle.build, u32::try_from(index).unwrap() + 1);
        assert_eq!(
            bundle.files,
            [
                "how-to-buy.html",
                "index.html",
                "live.js",
                "story.html",
                "style.css"
            ],
            "{name}"
        );
        let index_html = std::fs::read_to_string(bundle.site_dir().join("index.html")).unwrap();
        assert!(index_html.contains("PEPE2 is back"), "{name}: {index_html}");
        assert!(
            index_html.contains(r#"data-api="https://api.example.org" data-operation="7""#),
            "{name}: the live widgets know where to read"
        );
        let report = site::check(&bundle, OFFICIAL).unwrap();
        assert!(report.passed, "{name}: {:?}", report.problems);
        assert_eq!(report.pages, 3);
        assert!(report.links >= 9, "{name}: {} links", report.links);
        assert!(report.addresses_shown >= 4, "{name}");
        site::ready_to_publish(&bundle, OFFICIAL).unwrap();
    }
}

#[test]
fn text_from_the_fields_is_escaped_not_run() {
    let data = tempfile::tempdir().unwrap();
    let mut fields = fields();
    fields.hero.title = "<script>alert(1)</script>".into();

    let bundle = site::build(data.path(), "signal", &fields, &operation()).unwrap();

    let index_html = std::fs::read_to_string(bundle.site_dir().join("index.html")).unwrap();
    assert!(index_html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(site::check(&bundle, OFFICIAL).unwrap().passed);
}

#[test]
fn a_wrong_address_in_the_fields_fails_the_check_and_publishing_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let mut fields = fields();
    let wrong = "0x000000000000000000000000000000000000dEaD";
    fields.official_address = wrong.into();

    let bundle = site::build(data.path(), "classic", &fields, &operation()).unwrap();
    let report = site::check(&bundle, OFFICIAL).unwrap();

    assert!(!report.passed);
    assert!(report.problems.iter().any(|p| matches!(
        p,
        CheckedProblem::WrongAddress { page, shown } if page == "index.html" && shown == wrong
    )));
    let refused = site::ready_to_publish(&bundle, OFFICIAL).unwrap_err();
    assert!(
        matches!(refused, SiteError::CheckFailed { build: 1, .. }),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("not the official address"),
        "{refused}"
    );
}

#[test]
fn a_bundle_never_checked_or_changed_after_its_check_is_not_publishable() {
    let data = tempfile::tempdir().unwrap();
    let bundle = site::build(data.path(), "terminal", &fields(), &operation()).unwrap();

    let unchecked = site::ready_to_publish(&bundle, OFFICIAL).unwrap_err();
    assert!(
        matches!(unchecked, SiteError::NotChecked { build: 1 }),
        "{unchecked}"
    );

    assert!(site::check(&bundle, OFFICIAL).unwrap().passed);
    std::fs::write(
        bundle.site_dir().join("extra.html"),
        "<html><title>x</title></html>",
    )
    .unwrap();
    let changed = site::ready_to_publish(&bundle, OFFICIAL).unwrap_err();
    assert!(
        matches!(changed, SiteError::ChangedSinceCheck { build: 1 }),
        "{changed}"
    );
}

#[test]
fn a_broken_internal_link_or_an_unbalanced_page_fails_the_check() {
    let data = tempfile::tempdir().unwrap();
    let bundle = site::build(data.path(), "playful", &fields(), &operation()).unwrap();
    std::fs::remove_file(bundle.site_dir().join("story.html")).unwrap();
    let page = bundle.site_dir().join("how-to-buy.html");
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, html.replacen("</section>", "", 1)).unwrap();

    let report = site::check(&bundle, OFFICIAL).unwrap();

    assert!(!report.passed);
    assert!(report.problems.contains(&CheckedProblem::BrokenLink {
        page: "index.html".into(),
        link: "story.html".into()
    }));
    assert!(report.problems.iter().any(|p| matches!(
        p,
        CheckedProblem::NotHtml { page, .. } if page == "how-to-buy.html"
    )));
}

#[test]
fn a_template_refuses_fields_it_requires_left_empty() {
    let data = tempfile::tempdir().unwrap();
    let mut fields = fields();
    fields.lore.clear();
    fields.how_to_buy.clear();

    let refused = site::build(data.path(), "playful", &fields, &operation()).unwrap_err();

    assert!(
        refused
            .to_string()
            .contains("needs these fields filled: lore, how_to_buy"),
        "{refused}"
    );
    let unknown = site::build(data.path(), "brutalist", &fields, &operation()).unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("signal, classic, terminal, playful")
    );
}

/// A Webdev that builds `fields`, checks, publishes, then finishes.
fn webdev_turns(fields: &Value) -> Vec<Value> {
    let call = |name: &str, arguments: Value| {
        json!({"tool_calls": [{"name": name, "arguments": arguments}],
               "usage": {"prompt_tokens": 100, "completion_tokens": 20}})
    };
    vec![
        call(
            "site_build",
            json!({"template": "signal", "fields": fields}),
        ),
        call("site_check", json!({"build": 1})),
        call("site_publish", json!({"build": 1})),
        call(
            "finish",
            json!({"template": "signal", "fields": fields, "build": 1, "confidence": 0.9}),
        ),
    ]
}

/// A harness whose tools write under `data`, and the Webdev's claimed
/// task for the PEPE2 operation (its step flagged for validation).
async fn webdev_run(turns: Vec<Value>, data: &std::path::Path) -> (Harness, Task) {
    let mut h = Harness::new(turns).await;
    let toolbox = Toolbox::offline(offline_reader()).with_data_dir(data.to_owned());
    h.runner.tools = Arc::new(ToolRegistry::standard(&toolbox));
    let store = &h.db.store;
    let now = h.clock.now();
    let operation = store
        .create_operation(
            &NewOperation {
                name: "PEPE2".into(),
                token_symbol: Some("PEP2".into()),
                chain: Some("base".into()),
                official_address: Some(OFFICIAL.into()),
                official_addresses: Vec::new(),
                j0_at: now,
            },
            now,
        )
        .await
        .unwrap();
    store
        .set_operation_status(operation.id, OperationStatus::Running, now)
        .await
        .unwrap();
    let team = h.runner.catalogue.get("webdev").unwrap().team;
    let mut task = NewTask::new("webdev".parse().unwrap(), team, "Build the site", now);
    task.operation_id = Some(operation.id);
    task.requires_validation = true;
    store.create_task(&task, now).await.unwrap();
    store.promote_ready_tasks(now).await.unwrap();
    let claimed = store
        .claim_next_task("worker-1", now, TimeDelta::minutes(10))
        .await
        .unwrap()
        .unwrap();
    (h, claimed)
}

/// The results the tools gave, in order (0: site_build).
async fn tool_results(h: &Harness, task: &Task) -> Vec<Value> {
    recorded_tool_results(&h.db.store, task.id).await.unwrap()
}

#[tokio::test]
async fn a_checked_site_is_proposed_to_the_team_as_its_build() {
    let data = tempfile::tempdir().unwrap();
    let fields: Value = serde_json::from_str(FIELDS).unwrap();
    let (h, task) = webdev_run(webdev_turns(&fields), data.path()).await;

    let status = h.engine().execute(&task).await.unwrap().status();

    assert_eq!(status, TaskStatus::Blocked, "waits for the team");
    let results = tool_results(&h, &task).await;
    assert_eq!(results[0]["build"], 1);
    assert_eq!(results[1]["passed"], true, "{}", results[1]);
    let validations = h.db.store.validations_of_task(task.id).await.unwrap();
    assert_eq!(validations.len(), 1);
    assert_eq!(validations[0].kind, ValidationKind::Site);
    let content = Content::of(ValidationKind::Site, &validations[0].payload).unwrap();
    let Content::Site {
        template,
        build,
        fields: shown,
        ..
    } = content
    else {
        panic!("{content:?}")
    };
    assert_eq!((template.as_str(), build), ("signal", Some(1)));
    assert_eq!(shown["official_address"], OFFICIAL);
    assert!(
        data.path()
            .join("sites/operation-1/build-1/site/index.html")
            .exists()
    );
}

#[tokio::test]
async fn a_wrong_address_fails_the_check_and_no_validation_is_ever_created() {
    let data = tempfile::tempdir().unwrap();
    let mut fields: Value = serde_json::from_str(FIELDS).unwrap();
    fields["official_address"] = json!("0x000000000000000000000000000000000000dEaD");
    let (h, task) = webdev_run(webdev_turns(&fields), data.path()).await;

    let status = h.engine().execute(&task).await.unwrap().status();

    let results = tool_results(&h, &task).await;
    let check = &results[1];
    assert_eq!(check["passed"], false);
    assert_eq!(check["problems"][0]["problem"], "wrong_address", "{check}");
    let publish = &results[2];
    assert!(
        publish["error"]
            .as_str()
            .unwrap()
            .contains("the latest check of build 1 failed"),
        "{publish}"
    );
    assert!(
        h.db.store
            .validations_of_task(task.id)
            .await
            .unwrap()
            .is_empty(),
        "publishing is refused: the team never sees it"
    );
    assert_eq!(
        status,
        TaskStatus::Failed,
        "the step's own output is not proposed either"
    );
    let failed = h.db.store.task(task.id).await.unwrap();
    assert!(
        failed
            .error
            .unwrap_or_default()
            .contains("the site was not proposed"),
    );
}
