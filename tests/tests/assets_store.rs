//! Made files in the store, on both backends: a brand image recorded with
//! its size and checksum reads back by operation and by task, in order.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeZone, Utc};
use ulias_core::domain::{NewOperation, NewTask, Team};
use ulias_core::store::NewAsset;
use ulias_tests::db::TestDb;
use ulias_tests::on_both_backends;

on_both_backends!(
    a_recorded_image_reads_back_by_operation_and_by_task,
    an_asset_file_is_found_by_its_id,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 4, 9, 0, 0).unwrap()
}

fn image(kind: &str, side: u32, task: Option<ulias_core::domain::TaskId>) -> NewAsset {
    NewAsset {
        operation_id: None,
        task_id: task,
        kind: kind.into(),
        path: format!("/data/operation-1/brand/task-1-1/{kind}.png"),
        mime: "image/png".into(),
        width: Some(side),
        height: Some(side),
        bytes: 12_345,
        sha256: Some("ab".repeat(32)),
    }
}

async fn a_recorded_image_reads_back_by_operation_and_by_task(db: &TestDb) {
    let store = db.migrated().await;
    let op = store
        .create_operation(
            &NewOperation {
                name: "Pepe Two".into(),
                token_symbol: Some("PEP2".into()),
                chain: None,
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: t0(),
            },
            t0(),
        )
        .await
        .unwrap();
    let mut new = NewTask::new("designer".parse().unwrap(), Team::Takeover, "Kit", t0());
    new.operation_id = Some(op.id);
    let task = store.create_task(&new, t0()).await.unwrap();
    let other = store.create_task(&new, t0()).await.unwrap();

    let logo = NewAsset {
        operation_id: Some(op.id),
        ..image("logo_512", 512, Some(task.id))
    };
    let pfp = NewAsset {
        operation_id: Some(op.id),
        ..image("pfp", 400, Some(other.id))
    };
    let first = store.insert_asset(&logo, t0()).await.unwrap();
    let second = store.insert_asset(&pfp, t0()).await.unwrap();
    store
        .insert_asset(&image("meme", 1080, None), t0())
        .await
        .unwrap();

    let of_op = store.assets_of_operation(op.id).await.unwrap();
    assert_eq!(
        of_op.iter().map(|a| a.id).collect::<Vec<_>>(),
        [first, second]
    );
    let read = &of_op[0];
    assert_eq!(
        (read.kind.as_str(), read.width, read.height, read.bytes),
        ("logo_512", Some(512), Some(512), 12_345)
    );
    assert_eq!(read.sha256.as_deref(), logo.sha256.as_deref());
    assert_eq!(read.task_id, Some(task.id));
    assert_eq!(read.created_at, t0());

    let of_task = store.assets_of_task(other.id).await.unwrap();
    assert_eq!(of_task.len(), 1);
    assert_eq!(of_task[0].kind, "pfp");
}

async fn an_asset_file_is_found_by_its_id(db: &TestDb) {
    let store = db.migrated().await;
    let id = store
        .insert_asset(&image("banner", 500, None), t0())
        .await
        .unwrap();
    let file = store.asset_file(id).await.unwrap();
    assert_eq!(file.path, "/data/operation-1/brand/task-1-1/banner.png");
    assert_eq!(file.mime, "image/png");
}
