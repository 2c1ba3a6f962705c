//! Reading one asset's file facts (the brand kit's images, for X).

use super::{Store, StoreError, with_pool};
use crate::domain::OperationId;

/// Where an asset's file is, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetFile {
    pub id: i64,
    pub operation_id: Option<OperationId>,
    pub path: String,
    pub mime: String,
    /// What it is (`group_photo`, `logo_512`, `meme_3`…).
    pub kind: String,
}

impl Store {
    /// The asset `id`'s file.
    pub async fn asset_file(&self, id: i64) -> Result<AssetFile, StoreError> {
        let row: Option<(i64, Option<i64>, String, String, String)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT id, operation_id, path, mime, kind FROM assets WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await
        })?;
        let (id, operation, path, mime, kind) =
            row.ok_or(StoreError::NotFound { kind: "asset", id })?;
        Ok(AssetFile {
            id,
            operation_id: operation.map(OperationId::new),
            path,
            mime,
            kind,
        })
    }
}
