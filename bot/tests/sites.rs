//! Sites through the process: an approved, checked site reaches the
//! Cloudflare stand-in (files uploaded by hash, a deployment whose manifest
//! names them, the custom domain, the CNAME); a build changed after its
//! check is refused at publish time; Cloudflare's refusals reach the team
//! in Cloudflare's words; and the public API the widgets read answers with
//! the operation's figures, open to every origin.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::sync::Arc;
use std::time::Duration;

use secrecy::SecretString;
use serde_json::{Value, json};
use ulias_agents::publications::Content;
use ulias_agents::site::{self, SiteFields, SiteOperation};
use ulias_bot::cloudflare::asset_hash;
use ulias_bot::public_api::PublicApi;
use ulias_core::clock::ManualClock;
use ulias_core::domain::{
    NewOperation, NewValidation, OperationId, PublicationId, PublicationStatus, PublicationTarget,
    ValidationKind,
};
use ulias_core::settings::Locale;
use ulias_tests::db::TestDb;
use ulias_tests::fake_chain::{PEP2, reader_of, simulation_chain};
use ulias_tests::fake_cloudflare::{DnsRecord, FakeCloudflare};

use surface::*;

const ACCOUNT: &str = "0123456789abcdef0123456789abcdef";
const ZONE: &str = "fedcba9876543210fedcba9876543210";
const CF_TOKEN: &str = "cf-token-pages-dns";
const FIELDS: &str = include_str!("../../fixtures/sites/pepe2.json");

/// A database with the PEP2 operation, and its checked build 1 under `data`.
async fn operation_with_a_checked_site(data: &std::path::Path) -> TestDb {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let operation = db
        .store
        .create_operation(
            &NewOperation {
                name: "PEPE2".into(),
                token_symbol: Some("PEP2".into()),
                chain: Some("base".into()),
                official_address: Some(PEP2.into()),
                official_addresses: Vec::new(),
                j0_at: start_time(),
            },
            start_time(),
        )
        .await
        .unwrap();
    let fields: SiteFields = serde_json::from_str(FIELDS).unwrap();
    let shown = SiteOperation {
        id: operation.id.get(),
        name: "PEPE2".into(),
        ticker: "PEP2".into(),
        chain: "base".into(),
        api: Some("https://api.example.org".into()),
    };
    let bundle = site::build(data, "signal", &fields, &shown).unwrap();
    assert!(site::check(&bundle, PEP2).unwrap().passed);
    db
}

/// The team approves the site build 1 of operation 1.
async fn approve_site(db: &TestDb) {
    let fields: Value = serde_json::from_str(FIELDS).unwrap();
    let content = Content::Site {
        template: "signal".into(),
        fields,
        url: None,
        build: Some(1),
    };
    let validation = NewValidation {
        task_id: None,
        operation_id: Some(OperationId::new(1)),
        kind: ValidationKind::Site,
        target: PublicationTarget::Site,
        payload: content.payload(json!({"tool": "site_publish", "args": {"build": 1}})),
    };
    approved_validation(&db.store, &validation).await;
}

async fn start(cf: &FakeCloudflare, db: TestDb, data: &std::path::Path, token: &str) -> Surface {
    let (url, data, token) = (cf.url.clone(), data.to_owned(), token.to_owned());
    Surface::start_with(db, Locale::En, Vec::new(), move |s| {
        s.data_dir = data;
        s.cloudflare.api_url = url.parse().unwrap();
        s.cloudflare.account_id = Some(ACCOUNT.into());
        s.cloudflare.api_token = Some(SecretString::from(token));
        s.cloudflare.zone_id = Some(ZONE.into());
        s.cloudflare.domain = Some("example.org".into());
    })
    .await
}

async fn publication_settled(s: &Surface) -> ulias_core::domain::Publication {
    eventually("the site's publication settles", || async {
        let job = s.store().publication(PublicationId::new(1)).await.ok()?;
        (job.status != PublicationStatus::Pending && job.status != PublicationStatus::Sending)
            .then_some(job)
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_site_reaches_the_cloudflare_stand_in() {
    let cf = FakeCloudflare::start(CF_TOKEN, ACCOUNT, ZONE).await;
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    approve_site(&db).await;

    let s = start(&cf, db, data.path(), CF_TOKEN).await;
    let job = publication_settled(&s).await;

    assert_eq!(job.status, PublicationStatus::Sent, "{job:?}");
    assert_eq!(job.external_id.as_deref(), Some("https://pep2.example.org"));
    let deployments = cf.deployments();
    assert_eq!(deployments.len(), 1);
    let deployment = &deployments[0];
    assert_eq!(deployment.project, "ulias-pep2-1");
    let paths: Vec<&str> = deployment.manifest.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "/how-to-buy.html",
            "/index.html",
            "/live.js",
            "/story.html",
            "/style.css"
        ]
    );
    let site_dir = data.path().join("sites/operation-1/build-1/site");
    for (path, hash) in &deployment.manifest {
        let bytes = std::fs::read(site_dir.join(&path[1..])).unwrap();
        assert_eq!(*hash, asset_hash(&bytes, path), "{path}");
        assert_eq!(deployment.files[path], bytes, "{path} arrived whole");
    }
    assert_eq!(cf.uploads(), 5);
    assert_eq!(cf.projects()["ulias-pep2-1"], ["pep2.example.org"]);
    assert_eq!(
        cf.records(),
        [DnsRecord {
            kind: "CNAME".into(),
            name: "pep2.example.org".into(),
            content: "ulias-pep2-1.pages.dev".into(),
            proxied: true,
        }]
    );
    let operation = s.store().operation(OperationId::new(1)).await.unwrap();
    assert_eq!(operation.site_subdomain.as_deref(), Some("pep2"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_build_changed_after_its_check_is_refused_at_publish_time() {
    let cf = FakeCloudflare::start(CF_TOKEN, ACCOUNT, ZONE).await;
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    approve_site(&db).await;
    let index = data
        .path()
        .join("sites/operation-1/build-1/site/index.html");
    let html = std::fs::read_to_string(&index).unwrap();
    std::fs::write(
        &index,
        html.replace(PEP2, "0x000000000000000000000000000000000000dEaD"),
    )
    .unwrap();

    let s = start(&cf, db, data.path(), CF_TOKEN).await;
    let job = publication_settled(&s).await;

    assert_eq!(job.status, PublicationStatus::Failed);
    assert!(
        job.error
            .as_deref()
            .unwrap_or_default()
            .contains("changed after its check"),
        "{job:?}"
    );
    s.message_containing(TEAM_CHAT, "changed after its check")
        .await;
    assert!(
        cf.deployments().is_empty() && cf.records().is_empty(),
        "nothing went out"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cloudflares_refusal_reaches_the_team_in_its_own_words() {
    let cf = FakeCloudflare::start(CF_TOKEN, ACCOUNT, ZONE).await;
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    approve_site(&db).await;

    let s = start(&cf, db, data.path(), "a-revoked-token").await;
    let job = publication_settled(&s).await;

    assert_eq!(job.status, PublicationStatus::Failed);
    let message = s
        .message_containing(TEAM_CHAT, "[10000] Authentication error")
        .await;
    assert!(
        message["text"]
            .as_str()
            .unwrap()
            .contains("Cloudflare refused"),
        "{message}"
    );
    assert!(cf.deployments().is_empty());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_record_pointing_elsewhere_is_never_overwritten() {
    let cf = FakeCloudflare::start(CF_TOKEN, ACCOUNT, ZONE).await;
    let other = DnsRecord {
        kind: "CNAME".into(),
        name: "pep2.example.org".into(),
        content: "someone-else.pages.dev".into(),
        proxied: true,
    };
    cf.add_record(other.clone());
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    approve_site(&db).await;

    let s = start(&cf, db, data.path(), CF_TOKEN).await;
    let job = publication_settled(&s).await;

    assert_eq!(job.status, PublicationStatus::Failed);
    assert!(
        job.error
            .as_deref()
            .unwrap_or_default()
            .contains("already points to someone-else.pages.dev"),
        "{job:?}"
    );
    assert_eq!(cf.records(), [other]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_public_api_answers_with_the_operations_figures_and_cors() {
    let chain = simulation_chain().await;
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    db.store
        .set_site_subdomain(OperationId::new(1), "pep2", start_time())
        .await
        .unwrap();
    let api = Arc::new(PublicApi::new(
        db.store.clone(),
        reader_of(&chain),
        Arc::new(ManualClock::new(start_time())),
        Duration::from_secs(60),
        Some("example.org".into()),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(ulias_bot::public_api::serve(
        listener,
        api,
        std::future::pending(),
    ));
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::new();

    let answer = http
        .get(format!("{base}/api/operations/1"))
        .header("Origin", "https://pep2.example.org")
        .send()
        .await
        .unwrap();

    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["access-control-allow-origin"], "*");
    let figures: Value = answer.json().await.unwrap();
    assert_eq!(figures["ticker"], "PEP2");
    assert_eq!(figures["official_address"], PEP2);
    assert_eq!(figures["price_usd"], 2.853e-8);
    assert_eq!(figures["market_cap_usd"], 12003.0);
    assert_eq!(figures["liquidity_usd"], 12000.0);
    assert_eq!(figures["holders"], 2140, "{figures}");
    assert_eq!(figures["links"]["site"], "https://pep2.example.org");
    assert_eq!(
        figures["links"]["chart"],
        format!("https://dexscreener.com/base/{PEP2}")
    );
    assert!(figures["links"]["buy"].as_str().unwrap().contains(PEP2));

    chain.update(|fixture| fixture.tokens[0].pairs[0].price_usd = 1.0);
    let again: Value = http
        .get(format!("{base}/api/operations/1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        again["price_usd"], 2.853e-8,
        "within cache_seconds the figures are served from the cache"
    );

    let unknown = http
        .get(format!("{base}/api/operations/99"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(unknown.headers()["access-control-allow-origin"], "*");
    let body: Value = unknown.json().await.unwrap();
    assert_eq!(body["error"], "no such operation");
}

#[tokio::test(flavor = "multi_thread")]
async fn ulias_run_serves_the_public_api_when_listen_is_set() {
    let chain = simulation_chain().await;
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let chains = {
        let mut chains = ulias_core::settings::ChainsSettings::default();
        chain.point(&mut chains).unwrap();
        chains
    };
    let s = Surface::start_with(db, Locale::En, Vec::new(), move |s| {
        s.chains = chains;
        s.public_api.listen = Some(([127, 0, 0, 1], port).into());
        s.public_api.public_url = Some("https://api.example.org".parse().unwrap());
    })
    .await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::new();

    let figures: Value = eventually("the public API answers", || {
        let http = http.clone();
        async move {
            let answer = http
                .get(format!("http://127.0.0.1:{port}/api/operations/1"))
                .send()
                .await
                .ok()?;
            answer.json().await.ok()
        }
    })
    .await;

    assert_eq!(figures["name"], "PEPE2");
    assert_eq!(figures["market_cap_usd"], 12003.0);
    s.stop().await;
}

/// A passing run of the mini-game recorded as the sandbox would, with its
/// page (which links back to the site) in `dist/`.
async fn passing_minigame_run(store: &ulias_core::store::Store, dir: &std::path::Path) -> Value {
    use ulias_core::store::{NewUtilityRun, UtilityRunStatus};
    let config = json!({"title": "Catch the PEP2", "seconds": 30});
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::write(
        dir.join("dist/index.html"),
        "<!doctype html><html><head><title>Catch the PEP2</title></head>\
         <body><canvas id=\"game\"></canvas><a href=\"../index.html\">back</a></body></html>",
    )
    .unwrap();
    std::fs::write(dir.join("dist/build.py"), "print('not served')").unwrap();
    let run = NewUtilityRun {
        operation_id: OperationId::new(1),
        task_id: None,
        template: "web-minigame".into(),
        config: config.clone(),
        status: UtilityRunStatus::Passed,
        output_tail: "Ran 4 tests\nOK".into(),
        attempt: 1,
        dir: Some(dir.display().to_string()),
    };
    store.record_utility_run(&run, start_time()).await.unwrap();
    config
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_mini_game_comes_back_as_the_site_with_its_page_and_goes_online_with_it() {
    let cf = FakeCloudflare::start(CF_TOKEN, ACCOUNT, ZONE).await;
    let data = tempfile::tempdir().unwrap();
    let db = operation_with_a_checked_site(data.path()).await;
    db.store
        .bind_group(GROUP, OperationId::new(1), "bob", start_time())
        .await
        .unwrap();
    let config = passing_minigame_run(&db.store, &data.path().join("run-1")).await;
    let validation = NewValidation {
        task_id: None,
        operation_id: Some(OperationId::new(1)),
        kind: ValidationKind::Utility,
        target: PublicationTarget::Telegram,
        payload: json!({"tool": "utility_publish",
                        "content": {"kind": "utility", "template": "web-minigame", "config": config}}),
    };
    approved_validation(&db.store, &validation).await;

    let s = start(&cf, db, data.path(), CF_TOKEN).await;
    // The team is shown the site again: its next build, with the game.
    s.message_containing(TEAM_CHAT, "signal #2").await;
    let proposed = s
        .store()
        .pending_validations()
        .await
        .unwrap()
        .into_iter()
        .find(|v| v.kind == ValidationKind::Site)
        .expect("the rebuilt site waits for the team");
    let build = site::open(data.path(), 1, Some(2)).unwrap();
    assert!(
        build.files.contains(&"web-minigame/index.html".to_owned()),
        "{:?}",
        build.files
    );
    assert!(
        !build.files.iter().any(|f| f.ends_with(".py")),
        "no build script is served: {:?}",
        build.files
    );
    assert!(
        cf.deployments().is_empty(),
        "nothing online before approval"
    );

    s.store()
        .approve_validation(proposed.id, "bob", start_time())
        .await
        .unwrap();
    let deployment = eventually("the site with the game is online", || async {
        cf.deployments().into_iter().next()
    })
    .await;
    assert_eq!(
        deployment.files["/web-minigame/index.html"],
        std::fs::read(data.path().join("run-1/dist/index.html")).unwrap()
    );
    assert!(deployment.manifest.contains_key("/index.html"));
    s.stop().await;
}
