//! Pages Direct Upload, as wrangler does it: an upload token for the
//! project, the hashes Cloudflare lacks, those files uploaded (base64),
//! every hash upserted, then a deployment whose manifest maps each path to
//! its hash.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine as _;
use reqwest::Method;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Cloudflare, CloudflareError};

/// Files per upload request (wrangler batches by size; bundles are small).
const UPLOAD_BATCH: usize = 50;
/// Cloudflare's code for a project that does not exist.
const PROJECT_NOT_FOUND: i64 = 8_000_007;

/// A deployment Cloudflare accepted.
#[derive(Debug, Clone, Deserialize)]
pub struct Deployment {
    pub id: String,
    #[serde(default)]
    pub url: Option<String>,
}

#[derive(Deserialize)]
struct UploadToken {
    jwt: String,
}

#[derive(Deserialize)]
struct Domain {
    name: String,
}

/// A file's name in Pages' asset store, as wrangler computes it: the
/// BLAKE3 of its base64 text followed by its extension (no dot), in hex,
/// the first 32 characters.
pub fn asset_hash(bytes: &[u8], path: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    let mut hasher = blake3::Hasher::new();
    hasher.update(encoded.as_bytes());
    hasher.update(extension.as_bytes());
    let hex = hasher.finalize().to_hex();
    hex.as_str()[..32].to_owned()
}

/// The content type a file is served with, by extension.
pub fn content_type(path: &str) -> &'static str {
    match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("js" | "mjs") => "application/javascript",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("txt") => "text/plain",
        _ => "application/octet-stream",
    }
}

impl Cloudflare {
    fn project_path(&self, project: &str) -> String {
        format!(
            "accounts/{}/pages/projects/{project}",
            self.account.account_id
        )
    }

    /// The project, created (production branch `main`) when missing.
    pub async fn ensure_project(&self, project: &str) -> Result<(), CloudflareError> {
        let found: Result<Value, _> = self
            .call(
                self.request(Method::GET, &self.project_path(project)),
                "read the Pages project",
            )
            .await;
        match found {
            Ok(_) => Ok(()),
            Err(CloudflareError::Refused { errors, status, .. })
                if status == 404 || errors.iter().any(|e| e.code == PROJECT_NOT_FOUND) =>
            {
                let path = format!("accounts/{}/pages/projects", self.account.account_id);
                let _: Value = self
                    .call(
                        self.request(Method::POST, &path)
                            .json(&json!({"name": project, "production_branch": "main"})),
                        "create the Pages project",
                    )
                    .await?;
                Ok(())
            }
            Err(other) => Err(other),
        }
    }

    /// Uploads the files under `folder` Cloudflare lacks and deploys them.
    pub async fn deploy(
        &self,
        project: &str,
        folder: &Path,
    ) -> Result<Deployment, CloudflareError> {
        let files = read_folder(folder)?;
        let token: UploadToken = self
            .call(
                self.request(
                    Method::GET,
                    &format!("{}/upload-token", self.project_path(project)),
                ),
                "give an upload token",
            )
            .await?;
        let manifest: BTreeMap<String, String> = files
            .iter()
            .map(|(path, bytes)| (format!("/{path}"), asset_hash(bytes, path)))
            .collect();
        let hashes: Vec<&String> = manifest.values().collect();
        let missing: Vec<String> = self
            .call(
                self.with_jwt("pages/assets/check-missing", &token.jwt)
                    .json(&json!({"hashes": hashes})),
                "list the missing files",
            )
            .await?;
        let payloads: Vec<Value> = files
            .iter()
            .filter_map(|(path, bytes)| {
                let hash = asset_hash(bytes, path);
                missing.contains(&hash).then(|| {
                    json!({
                        "key": hash,
                        "value": base64::engine::general_purpose::STANDARD.encode(bytes),
                        "metadata": {"contentType": content_type(path)},
                        "base64": true,
                    })
                })
            })
            .collect();
        for batch in payloads.chunks(UPLOAD_BATCH) {
            let _: Value = self
                .call(
                    self.with_jwt("pages/assets/upload", &token.jwt).json(batch),
                    "upload the site's files",
                )
                .await?;
        }
        let _: Value = self
            .call(
                self.with_jwt("pages/assets/upsert-hashes", &token.jwt)
                    .json(&json!({"hashes": hashes})),
                "record the site's files",
            )
            .await?;
        let manifest =
            serde_json::to_string(&manifest).map_err(|e| CloudflareError::Malformed {
                action: "write the manifest",
                message: e.to_string(),
            })?;
        let form = reqwest::multipart::Form::new()
            .text("manifest", manifest)
            .text("branch", "main");
        self.call(
            self.request(
                Method::POST,
                &format!("{}/deployments", self.project_path(project)),
            )
            .multipart(form),
            "create the deployment",
        )
        .await
    }

    /// Attaches `host` to the project, unless it already is.
    pub async fn ensure_domain(&self, project: &str, host: &str) -> Result<(), CloudflareError> {
        let path = format!("{}/domains", self.project_path(project));
        let domains: Vec<Domain> = self
            .call(
                self.request(Method::GET, &path),
                "list the project's domains",
            )
            .await?;
        if domains.iter().any(|d| d.name.eq_ignore_ascii_case(host)) {
            return Ok(());
        }
        let _: Value = self
            .call(
                self.request(Method::POST, &path)
                    .json(&json!({"name": host})),
                "add the custom domain",
            )
            .await?;
        Ok(())
    }
}

/// Every file under `root`, by `/`-separated path relative to it, sorted.
fn read_folder(root: &Path) -> Result<Vec<(String, Vec<u8>)>, CloudflareError> {
    let unreadable = |path: &Path| {
        let path = path.display().to_string();
        move |source| CloudflareError::Bundle { path, source }
    };
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(unreadable(&folder))? {
            let path = entry.map_err(unreadable(&folder))?.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).map_err(unreadable(&path))?;
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .filter_map(|c| c.as_os_str().to_str())
                .collect::<Vec<_>>()
                .join("/");
            files.push((relative, bytes));
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asset_is_named_as_wrangler_names_it() {
        // blake3("aGk=" + "txt"), as wrangler's hashFile computes it for a
        // file `hi.txt` holding "hi".
        let expected = blake3::hash(b"aGk=txt").to_hex().as_str()[..32].to_owned();
        assert_eq!(asset_hash(b"hi", "notes/hi.txt"), expected);
        assert_eq!(asset_hash(b"hi", "hi.txt").len(), 32);
        assert_ne!(asset_hash(b"hi", "hi.txt"), asset_hash(b"hi", "hi.html"));
    }
}
