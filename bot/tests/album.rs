//! Albums of made images through the bot: the team sees the kit's images
//! above the Approve / Reject preview, and once approved the album reaches
//! the group, uploaded from the data folder in media groups of 2–10, every
//! byte as made; the kit's group photo becomes the operation's group's
//! photo, or the team is told why not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use serde_json::json;
use ulias_agents::brand::{Brand, Template};
use ulias_agents::publications::Content;
use ulias_core::domain::{NewValidation, PublicationTarget, ValidationKind};
use ulias_core::settings::{GroupSettings, Locale, ModerationMode};
use ulias_core::store::{NewAsset, Store};
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

/// `count` distinct logos written under `folder` and recorded; their bytes.
async fn made_images(store: &Store, folder: &std::path::Path, count: u32) -> Vec<(i64, Vec<u8>)> {
    let brand = Brand::new(
        "Pepe Two",
        "PEP2",
        "",
        &["#0B0F1A", "#39FF88", "#1E6BFF", "#F4F7FB"],
        "circle",
    )
    .unwrap();
    let mut made = Vec::new();
    for i in 0..count {
        let side = 96 + i;
        let png = Template::Logo(side).render(&brand).unwrap().png().unwrap();
        let path = folder.join(format!("logo-{side}.png"));
        std::fs::write(&path, &png).unwrap();
        let asset = NewAsset {
            operation_id: None,
            task_id: None,
            kind: format!("logo_{side}"),
            path: path.display().to_string(),
            mime: "image/png".into(),
            width: Some(side),
            height: Some(side),
            bytes: png.len() as u64,
            sha256: None,
        };
        let id = store.insert_asset(&asset, start_time()).await.unwrap();
        made.push((id, png));
    }
    made
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_kit_album_reaches_the_group_with_its_images() {
    let folder = tempfile::tempdir().unwrap();
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let made = made_images(&db.store, folder.path(), 12).await;
    let content = Content::Album {
        images: Vec::new(),
        caption: "Neon Pond: the kit".into(),
        assets: made.iter().map(|(id, _)| *id).collect(),
    };
    let validation = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Album,
        target: PublicationTarget::Telegram,
        payload: content.payload(json!({"step": "designer.kit"})),
    };
    db.store
        .create_validation(&validation, start_time())
        .await
        .unwrap();
    let s = Surface::start_with(db, Locale::En, Vec::new(), |s| {
        s.telegram.groups = vec![community()]
    })
    .await;
    let expected: Vec<Vec<u8>> = made.iter().map(|(_, png)| png.clone()).collect();

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    let shown = eventually("the team sees the images", || async {
        let photos = s.tg.uploaded_photos(TEAM_CHAT);
        (photos.len() == 12).then_some(photos)
    })
    .await;
    assert_eq!(shown, expected, "the team sees the images as made");

    let approve = button_data(&preview)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);
    let sent = eventually("the album reaches the group", || async {
        let photos = s.tg.uploaded_photos(GROUP);
        (photos.len() == 12).then_some(photos)
    })
    .await;
    assert_eq!(
        sent, expected,
        "every image arrives, in order, byte for byte"
    );
    let groups: Vec<usize> =
        s.tg.calls_of("sendMediaGroup")
            .iter()
            .filter(|call| call.params["chat_id"] == json!(GROUP))
            .map(|call| call.params["media"].as_array().unwrap().len())
            .collect();
    assert_eq!(groups, [6, 6], "Telegram takes 2–10 items per media group");
    let caption = s.tg.messages(GROUP)[0]["caption"].clone();
    assert_eq!(caption, json!("Neon Pond: the kit"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_media_group_outside_two_to_ten_items_is_refused_by_the_fake_bot_api() {
    let tg = ulias_tests::fake_telegram::FakeTelegram::start().await;
    tg.add_group(GROUP, "PEPE2 community");
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let url = format!("{}botTOKEN/sendMediaGroup", tg.api_url);
    for count in [1, 11] {
        let media: Vec<_> = (0..count)
            .map(|i| json!({"type": "photo", "media": format!("attach://p{i}")}))
            .collect();
        let mut form = reqwest::multipart::Form::new()
            .text("chat_id", GROUP.to_string())
            .text("media", serde_json::to_string(&media).unwrap());
        for i in 0..count {
            let part =
                reqwest::multipart::Part::bytes(vec![7_u8; 64]).file_name(format!("p{i}.png"));
            form = form.part(format!("p{i}"), part);
        }
        let answer: serde_json::Value = client
            .post(&url)
            .multipart(form)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["ok"], json!(false), "{count} items: {answer}");
        assert!(answer["description"].as_str().unwrap().contains("2-10"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_album_naming_another_operations_image_is_refused_and_nothing_is_sent() {
    let folder = tempfile::tempdir().unwrap();
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let mut made = made_images(&db.store, folder.path(), 2).await;
    let other = db
        .store
        .create_operation(
            &ulias_core::domain::NewOperation {
                name: "Other".into(),
                token_symbol: None,
                chain: None,
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: start_time(),
            },
            start_time(),
        )
        .await
        .unwrap();
    let foreign = NewAsset {
        operation_id: Some(other.id),
        task_id: None,
        kind: "meme".into(),
        path: folder.path().join("logo-96.png").display().to_string(),
        mime: "image/png".into(),
        width: Some(96),
        height: Some(96),
        bytes: 0,
        sha256: None,
    };
    made.push((
        db.store.insert_asset(&foreign, start_time()).await.unwrap(),
        Vec::new(),
    ));
    let content = Content::Album {
        images: Vec::new(),
        caption: "kit".into(),
        assets: made.iter().map(|(id, _)| *id).collect(),
    };
    let validation = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Album,
        target: PublicationTarget::Telegram,
        payload: content.payload(json!({"step": "designer.kit"})),
    };
    db.store
        .create_validation(&validation, start_time())
        .await
        .unwrap();
    let s = Surface::start_with(db, Locale::En, Vec::new(), |s| {
        s.telegram.groups = vec![community()]
    })
    .await;

    let preview = s.message_containing(TEAM_CHAT, "Validation #1").await;
    assert!(
        s.tg.uploaded_photos(TEAM_CHAT).is_empty(),
        "the team is not shown another operation's image"
    );
    let approve = button_data(&preview)[0].clone();
    s.tg.press_button(&teammate(), TEAM_CHAT, id_of(&preview), &approve);
    eventually("the publication is refused", || async {
        let first = ulias_core::domain::PublicationId::new(1);
        let publication = s.store().publication(first).await.ok()?;
        (publication.status == ulias_core::domain::PublicationStatus::Failed).then_some(())
    })
    .await;
    assert!(
        s.tg.uploaded_photos(GROUP).is_empty(),
        "nothing reaches the group"
    );
    s.stop().await;
}

/// An operation bound to the group, and its approved kit: `count` images
/// and the group photo (640×640); the photo's bytes.
async fn approved_kit_with_group_photo(store: &Store, folder: &std::path::Path) -> Vec<u8> {
    let op = surface::running_operation(store, "PEP2").await;
    store
        .bind_group(GROUP, op, "bob", start_time())
        .await
        .unwrap();
    let brand = Brand::new(
        "Pepe Two",
        "PEP2",
        "",
        &["#0B0F1A", "#39FF88", "#1E6BFF", "#F4F7FB"],
        "circle",
    )
    .unwrap();
    let mut ids = Vec::new();
    let mut photo = Vec::new();
    for template in [Template::Logo(128), Template::GroupPhoto] {
        let png = template.render(&brand).unwrap().png().unwrap();
        let path = folder.join(format!("{}.png", template.kind()));
        std::fs::write(&path, &png).unwrap();
        let asset = NewAsset {
            operation_id: Some(op),
            task_id: None,
            kind: template.kind(),
            path: path.display().to_string(),
            mime: "image/png".into(),
            width: None,
            height: None,
            bytes: png.len() as u64,
            sha256: None,
        };
        ids.push(store.insert_asset(&asset, start_time()).await.unwrap());
        photo = png;
    }
    let content = Content::Album {
        images: Vec::new(),
        caption: "The kit".into(),
        assets: ids,
    };
    let validation = NewValidation {
        task_id: None,
        operation_id: Some(op),
        kind: ValidationKind::Album,
        target: PublicationTarget::Telegram,
        payload: content.payload(json!({"step": "designer.kit"})),
    };
    approved_validation(store, &validation).await;
    photo
}

#[tokio::test(flavor = "multi_thread")]
async fn the_approved_kit_sets_the_operations_group_photo_when_the_bot_may_change_its_info() {
    use ulias_tests::fake_telegram::Right;
    let folder = tempfile::tempdir().unwrap();
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let photo = approved_kit_with_group_photo(&db.store, folder.path()).await;
    let s = Surface::start_in_world(
        db,
        Locale::En,
        Vec::new(),
        |tg| {
            tg.add_bot_admin(
                GROUP,
                &[
                    Right::DeleteMessages,
                    Right::RestrictMembers,
                    Right::PinMessages,
                    Right::ChangeInfo,
                ],
            )
        },
        |s| s.telegram.groups = vec![community()],
    )
    .await;

    let set = eventually("the group photo is set", || async {
        s.tg.chat_photo(GROUP)
    })
    .await;

    assert_eq!(set, photo, "the kit's 640×640 group photo, byte for byte");
    assert_eq!(
        s.tg.uploaded_photos(GROUP).len(),
        2,
        "the album went out too"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_group_photo_telegram_refuses_is_told_to_the_team_and_the_album_stays_sent() {
    let folder = tempfile::tempdir().unwrap();
    let db = TestDb::sqlite().await;
    db.migrated().await;
    approved_kit_with_group_photo(&db.store, folder.path()).await;
    // The usual moderator rights: no "change group info".
    let s = Surface::start_with(db, Locale::En, Vec::new(), |s| {
        s.telegram.groups = vec![community()]
    })
    .await;

    s.message_containing(TEAM_CHAT, "refused to set the kit's group photo")
        .await;

    assert_eq!(s.tg.chat_photo(GROUP), None);
    assert_eq!(s.tg.uploaded_photos(GROUP).len(), 2, "the album is out");
    let job = s
        .store()
        .publication(ulias_core::domain::PublicationId::new(1))
        .await
        .unwrap();
    assert_eq!(job.status, ulias_core::domain::PublicationStatus::Sent);
    s.stop().await;
}
