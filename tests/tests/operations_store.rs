//! What an operation owns, on both backends: its contract (one live
//! operation each), its community groups and its X accounts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeZone, Utc};
use ulias_core::domain::{NewOperation, OperationStatus};
use ulias_core::store::StoreError;
use ulias_tests::db::TestDb;
use ulias_tests::on_both_backends;

on_both_backends!(
    a_contract_belongs_to_one_live_operation_at_a_time,
    a_group_and_an_account_belong_to_one_live_operation,
);

const CONTRACT: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap()
}

fn takeover(name: &str, address: &str) -> NewOperation {
    NewOperation {
        name: name.into(),
        token_symbol: Some("PEP2".into()),
        chain: Some("base".into()),
        official_address: Some(address.into()),
        official_addresses: vec!["0x1111111111111111111111111111111111111111".into()],
        j0_at: t0(),
    }
}

async fn a_contract_belongs_to_one_live_operation_at_a_time(db: &TestDb) {
    let store = db.migrated().await;
    let first = store
        .create_operation(&takeover("Pepe Two", CONTRACT), t0())
        .await
        .unwrap();
    assert_eq!(
        first.official_addresses,
        [
            CONTRACT.to_owned(),
            "0x1111111111111111111111111111111111111111".to_owned()
        ],
        "the contract is an official address"
    );
    let again = store
        .create_operation(&takeover("Pepe Again", &CONTRACT.to_lowercase()), t0())
        .await
        .unwrap_err();
    assert!(
        matches!(again, StoreError::Taken { what: "contract", operation } if operation == first.id.get()),
        "{again}"
    );
    assert_eq!(
        store
            .live_operation_for("base", &CONTRACT.to_uppercase().replace("0X", "0x"))
            .await
            .unwrap()
            .map(|o| o.id),
        Some(first.id)
    );

    store.stop_operation(first.id, t0()).await.unwrap();
    let next = store
        .create_operation(&takeover("Pepe Three", CONTRACT), t0())
        .await
        .unwrap();
    assert_eq!(next.status, OperationStatus::Planned);
    assert_ne!(next.id, first.id, "a stopped operation frees its contract");
}

async fn a_group_and_an_account_belong_to_one_live_operation(db: &TestDb) {
    let store = db.migrated().await;
    let one = store
        .create_operation(&takeover("One", CONTRACT), t0())
        .await
        .unwrap();
    let two = store
        .create_operation(
            &takeover("Two", "0x2222222222222222222222222222222222222222"),
            t0(),
        )
        .await
        .unwrap();
    store
        .bind_group(-1001, one.id, "alice", t0())
        .await
        .unwrap();
    store
        .bind_group(-1001, one.id, "alice", t0())
        .await
        .unwrap();
    store.bind_group(-1002, two.id, "bob", t0()).await.unwrap();
    let refused = store
        .bind_group(-1001, two.id, "bob", t0())
        .await
        .unwrap_err();
    assert!(
        matches!(refused, StoreError::Taken { what: "group", operation } if operation == one.id.get()),
        "{refused}"
    );
    assert_eq!(store.groups_of_operation(one.id).await.unwrap(), [-1001]);
    assert_eq!(
        store.operation_of_group(-1002).await.unwrap().map(|o| o.id),
        Some(two.id)
    );

    store.bind_account("pepe2", one.id, t0()).await.unwrap();
    assert!(matches!(
        store.bind_account("pepe2", two.id, t0()).await,
        Err(StoreError::Taken {
            what: "account",
            ..
        })
    ));
    assert_eq!(
        store.accounts_of_operation(one.id).await.unwrap(),
        ["pepe2"]
    );

    store.stop_operation(one.id, t0()).await.unwrap();
    store.bind_group(-1001, two.id, "bob", t0()).await.unwrap();
    assert_eq!(
        store.groups_of_operation(two.id).await.unwrap(),
        [-1002, -1001],
        "an ended operation's group can be bound again"
    );
}
