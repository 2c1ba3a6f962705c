//! The Designer through the fake LLM: three directions, each drawn as a
//! preview sheet the team sees in the album; once the winner is approved,
//! the kit (logos, profile picture, banner, OG image, group photo and at
//! least 20 memes) stored as assets with their files on disk.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_agents::publications::Content;
use ulias_agents::tools::{ToolRegistry, Toolbox};
use ulias_core::clock::Clock;
use ulias_core::domain::{
    NewOperation, NewTask, OperationId, OperationStatus, Task, Team, ValidationKind,
};
use ulias_core::store::Asset;
use ulias_tests::fake_chain::offline_reader;
use ulias_tests::harness::Harness;

fn directions() -> Vec<Value> {
    vec![
        json!({"name": "Neon Pond", "palette": ["#0B0F1A", "#39FF88", "#1E6BFF", "#F4F7FB"],
               "mood": "Electric night-time frog.", "logo_prompt": "a glowing circle"}),
        json!({"name": "Sunday Comic", "palette": ["#FFF4D6", "#2E8B57", "#E4572E", "#1B1B1B"],
               "mood": "Warm newspaper comic.", "logo_prompt": "a chunky square badge"}),
        json!({"name": "Blueprint", "palette": ["#0052FF", "#FFFFFF", "#7CD992", "#0A1F44"],
               "mood": "Clean builder lines.", "logo_prompt": "a hexagon"}),
    ]
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": arguments}]})
}

/// The Designer's script: three previews and the directions, then the kit.
fn script() -> Vec<Value> {
    let mut turns: Vec<Value> = directions()
        .into_iter()
        .map(|direction| {
            call(
                "brand_render",
                json!({"what": "preview", "direction": direction,
                       "memes": [{"top": "GM", "bottom": "the pond is back"}]}),
            )
        })
        .collect();
    let with_previews: Vec<Value> = directions()
        .into_iter()
        .zip(1..)
        .map(|(mut d, preview)| {
            d["preview"] = json!(preview);
            d
        })
        .collect();
    turns.push(call(
        "finish",
        json!({"directions": with_previews, "confidence": 0.9}),
    ));
    let memes: Vec<Value> = (1..=20)
        .map(|i| json!({"top": format!("Day {i} of the takeover"), "bottom": "still croaking"}))
        .collect();
    turns.push(call(
        "brand_render",
        json!({"what": "kit", "direction": directions()[0], "memes": memes}),
    ));
    turns.push(call(
        "finish",
        json!({"direction": "Neon Pond", "assets": (4..=30).collect::<Vec<i64>>(), "confidence": 0.9}),
    ));
    turns
}

async fn designer_task(h: &Harness, op: OperationId, kind: &str, input: Value) -> Task {
    let now = h.clock.now();
    let mut new = NewTask::new("designer".parse().unwrap(), Team::Takeover, kind, now);
    new.operation_id = Some(op);
    new.kind = Some(kind.to_owned());
    new.requires_validation = true;
    new.input = input;
    h.db.store.create_task(&new, now).await.unwrap()
}

/// Checks the file is the PNG the row says: its size and dimensions.
fn assert_png_on_disk(asset: &Asset, data: &Path) {
    let path = Path::new(&asset.path);
    assert!(
        path.starts_with(data),
        "{} is under the data folder",
        asset.path
    );
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{}", asset.path);
    assert_eq!(bytes.len() as u64, asset.bytes);
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((Some(width), Some(height)), (asset.width, asset.height));
    assert_eq!(asset.sha256.as_ref().map(String::len), Some(64));
}

#[tokio::test]
async fn a_scripted_designer_draws_three_previews_then_once_approved_a_kit_of_twenty_memes() {
    let data = tempfile::tempdir().unwrap();
    let mut h = Harness::new(script()).await;
    let toolbox = Toolbox::offline(offline_reader()).with_data_dir(data.path().to_owned());
    h.runner.tools = Arc::new(ToolRegistry::standard(&toolbox));
    let engine = Engine {
        runner: h.runner.clone(),
        config: EngineConfig::default(),
    };
    let store = &h.db.store;
    let now = h.clock.now();
    let op = store
        .create_operation(
            &NewOperation {
                name: "Pepe Two".into(),
                token_symbol: Some("PEP2".into()),
                chain: None,
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: now,
            },
            now,
        )
        .await
        .unwrap();
    store
        .set_operation_status(op.id, OperationStatus::Running, now)
        .await
        .unwrap();

    // Three directions, each with its preview sheet.
    let first = designer_task(&h, op.id, "directions", json!({})).await;
    engine.tick().await.unwrap();
    let previews = store.assets_of_task(first.id).await.unwrap();
    assert_eq!(previews.len(), 3, "{previews:?}");
    for preview in &previews {
        assert_eq!(preview.kind, "preview");
        assert_eq!((preview.width, preview.height), (Some(1600), Some(1040)));
        assert_png_on_disk(preview, data.path());
        let folder = format!("operation-{}/brand/task-{}-1", op.id, first.id);
        assert!(preview.path.contains(&folder), "{}", preview.path);
    }
    let validation = store.validations_of_task(first.id).await.unwrap();
    assert_eq!(validation.len(), 1);
    assert_eq!(validation[0].kind, ValidationKind::Album);
    let Content::Album { assets, .. } =
        Content::of(validation[0].kind, &validation[0].payload).unwrap()
    else {
        panic!("the directions are an album");
    };
    let ids: Vec<i64> = previews.iter().map(|a| a.id).collect();
    assert_eq!(assets, ids, "the album shows the three preview sheets");

    // Approved: the kit of the winner.
    store
        .approve_validation(validation[0].id, "bob", h.clock.now())
        .await
        .unwrap();
    let vote = json!({"vote": {"winner": "Neon Pond"}});
    let kit_task = designer_task(&h, op.id, "kit", vote).await;
    engine.tick().await.unwrap();
    let kit = store.assets_of_task(kit_task.id).await.unwrap();
    let count = |kind: &str| kit.iter().filter(|a| a.kind == kind).count();
    assert_eq!(count("meme"), 20);
    for kind in [
        "logo_512",
        "logo_256",
        "logo_128",
        "pfp",
        "banner",
        "og",
        "group_photo",
    ] {
        assert_eq!(count(kind), 1, "{kind}");
    }
    let size = |kind: &str| {
        let asset = kit.iter().find(|a| a.kind == kind).unwrap();
        (asset.width.unwrap(), asset.height.unwrap())
    };
    assert_eq!(size("banner"), (1500, 500));
    assert_eq!(size("og"), (1200, 630));
    assert_eq!(size("pfp"), (400, 400));
    assert_eq!(size("group_photo"), (640, 640));
    for asset in &kit {
        assert_png_on_disk(asset, data.path());
        assert_eq!(asset.operation_id, Some(op.id));
    }
    let of_operation = store.assets_of_operation(op.id).await.unwrap();
    assert_eq!(of_operation.len(), 3 + 27);
    let kit_validation = store.validations_of_task(kit_task.id).await.unwrap();
    let Content::Album { assets, .. } =
        Content::of(kit_validation[0].kind, &kit_validation[0].payload).unwrap()
    else {
        panic!("the kit is an album");
    };
    assert_eq!(assets, kit.iter().map(|a| a.id).collect::<Vec<_>>());
}

#[tokio::test]
async fn without_a_data_folder_brand_render_refuses_and_says_why() {
    let turns = vec![
        call(
            "brand_render",
            json!({"what": "preview", "direction": directions()[0]}),
        ),
        call(
            "finish",
            json!({"summary": "x", "findings": [], "confidence": 0.9}),
        ),
    ];
    let h = Harness::new(turns).await;
    let task = h.claimed_task("designer", json!({})).await;
    let ctx = h.tool_context(&task, "designer");
    // The harness gives every test a data folder: this registry has none.
    let offline = ToolRegistry::standard(&Toolbox::offline(h.runner.tools.chain().clone()));
    let tool = offline.built("brand_render").unwrap();
    let error = tool
        .run(
            &ctx,
            json!({"what": "preview", "direction": directions()[0]}),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("no data folder"), "{error}");
}
