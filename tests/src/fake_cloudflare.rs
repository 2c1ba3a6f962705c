//! A loopback stand-in for Cloudflare's API (`/client/v4`), over real
//! HTTP, answering in Cloudflare's envelope (`success`, `errors`,
//! `messages`, `result`) and enforcing its rules:
//!
//! - every account and zone call needs `Authorization: Bearer <api token>`
//!   (else 403, `[10000] Authentication error`) and the right account or
//!   zone id (else 404, `[7003] Could not route`);
//! - Pages projects: read (404 `[8000007] Project not found`), create,
//!   upload token (a JWT for that project), custom domains;
//! - the assets API (`/pages/assets/check-missing`, `upload`,
//!   `upsert-hashes`) takes only a project's upload JWT; an upload's key
//!   must be a 32-hex hash;
//! - a deployment (multipart, its `manifest` {"/path": hash}) is refused
//!   when it names a hash never uploaded, or whose uploaded content does
//!   not hash (wrangler's way) to it for that path;
//! - DNS records of the zone: listed by type and name, created.
//!
//! Deployments, domains and records are kept for the tests to read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test support fails loudly

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine as _;
use serde_json::{Value, json};

/// A deployment the stand-in accepted.
#[derive(Debug, Clone)]
pub struct Deployment {
    pub project: String,
    pub manifest: BTreeMap<String, String>,
    /// Each path's bytes, from the uploads the manifest names.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// A DNS record of the zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsRecord {
    pub kind: String,
    pub name: String,
    pub content: String,
    pub proxied: bool,
}

#[derive(Default)]
struct World {
    token: String,
    account: String,
    zone: String,
    /// Project → its custom domains.
    projects: BTreeMap<String, Vec<String>>,
    /// Upload JWT → project.
    jwts: HashMap<String, String>,
    /// Hash → (base64 content, content type).
    assets: HashMap<String, (String, String)>,
    upserted: HashSet<String>,
    deployments: Vec<Deployment>,
    records: Vec<DnsRecord>,
    uploads: usize,
    next: u64,
}

/// A running stand-in for one account and zone.
#[derive(Clone)]
pub struct FakeCloudflare {
    /// The API's base URL (`http://127.0.0.1:PORT/client/v4/`).
    pub url: String,
    world: Arc<Mutex<World>>,
}

type Shared = State<Arc<Mutex<World>>>;

impl FakeCloudflare {
    /// A stand-in accepting `token` for `account` and `zone`.
    pub async fn start(token: &str, account: &str, zone: &str) -> Self {
        let world = Arc::new(Mutex::new(World {
            token: token.to_owned(),
            account: account.to_owned(),
            zone: zone.to_owned(),
            ..World::default()
        }));
        let projects = "/client/v4/accounts/{account}/pages/projects";
        let app = Router::new()
            .route(projects, post(create_project))
            .route(&format!("{projects}/{{project}}"), get(read_project))
            .route(
                &format!("{projects}/{{project}}/upload-token"),
                get(upload_token),
            )
            .route(&format!("{projects}/{{project}}/deployments"), post(deploy))
            .route(
                &format!("{projects}/{{project}}/domains"),
                get(list_domains).post(add_domain),
            )
            .route("/client/v4/pages/assets/check-missing", post(check_missing))
            .route("/client/v4/pages/assets/upload", post(upload))
            .route("/client/v4/pages/assets/upsert-hashes", post(upsert))
            .route(
                "/client/v4/zones/{zone}/dns_records",
                get(list_records).post(create_record),
            )
            .with_state(world.clone());
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            url: format!("http://{address}/client/v4/"),
            world,
        }
    }

    fn world(&self) -> std::sync::MutexGuard<'_, World> {
        self.world.lock().unwrap()
    }

    /// The deployments accepted, in order.
    pub fn deployments(&self) -> Vec<Deployment> {
        self.world().deployments.clone()
    }

    /// The zone's records.
    pub fn records(&self) -> Vec<DnsRecord> {
        self.world().records.clone()
    }

    /// A record already in the zone (another site, say).
    pub fn add_record(&self, record: DnsRecord) {
        self.world().records.push(record);
    }

    /// The projects and their custom domains.
    pub fn projects(&self) -> BTreeMap<String, Vec<String>> {
        self.world().projects.clone()
    }

    /// Files uploaded so far (an unchanged file is never sent twice).
    pub fn uploads(&self) -> usize {
        self.world().uploads
    }
}

fn envelope(status: StatusCode, result: Value) -> Response {
    (
        status,
        Json(json!({"success": true, "errors": [], "messages": [], "result": result})),
    )
        .into_response()
}

fn ok(result: Value) -> Response {
    envelope(StatusCode::OK, result)
}

fn error(status: StatusCode, code: i64, message: &str) -> Response {
    (
        status,
        Json(
            json!({"success": false, "errors": [{"code": code, "message": message}],
                    "messages": [], "result": null}),
        ),
    )
        .into_response()
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// The API token and the account are right, or the refusal.
fn account_call(world: &World, headers: &HeaderMap, account: &str) -> Option<Response> {
    if bearer(headers) != Some(world.token.as_str()) {
        return Some(error(StatusCode::FORBIDDEN, 10_000, "Authentication error"));
    }
    (account != world.account).then(|| {
        error(
            StatusCode::NOT_FOUND,
            7003,
            &format!(
                "Could not route to /accounts/{account}, perhaps your object identifier is invalid?"
            ),
        )
    })
}

/// The refusal of an assets call without a project's upload JWT.
fn jwt_refusal(world: &World, headers: &HeaderMap) -> Option<Response> {
    let known = bearer(headers).is_some_and(|jwt| world.jwts.contains_key(jwt));
    (!known).then(|| error(StatusCode::UNAUTHORIZED, 8_000_013, "Invalid upload token"))
}

fn not_found(project: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        8_000_007,
        &format!(
            "Project not found. The specified project name does not match any of your existing projects. ({project})"
        ),
    )
}

async fn read_project(
    State(world): Shared,
    headers: HeaderMap,
    Path((account, project)): Path<(String, String)>,
) -> Response {
    let world = world.lock().unwrap();
    if let Some(refused) = account_call(&world, &headers, &account) {
        return refused;
    }
    match world.projects.get(&project) {
        Some(domains) => ok(
            json!({"name": project, "subdomain": format!("{project}.pages.dev"),
                                   "domains": domains, "production_branch": "main"}),
        ),
        None => not_found(&project),
    }
}

async fn create_project(
    State(world): Shared,
    headers: HeaderMap,
    Path(account): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = account_call(&world, &headers, &account) {
        return refused;
    }
    let Some(name) = body["name"].as_str().map(str::to_owned) else {
        return error(
            StatusCode::BAD_REQUEST,
            8_000_005,
            "A project name is required.",
        );
    };
    let valid = !name.is_empty()
        && name.len() <= 58
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        return error(StatusCode::BAD_REQUEST, 8_000_005, "Invalid project name.");
    }
    if world.projects.contains_key(&name) {
        return error(
            StatusCode::CONFLICT,
            8_000_002,
            "A project with this name already exists.",
        );
    }
    world.projects.insert(name.clone(), Vec::new());
    ok(
        json!({"name": name, "subdomain": format!("{name}.pages.dev"), "production_branch": body["production_branch"]}),
    )
}

async fn upload_token(
    State(world): Shared,
    headers: HeaderMap,
    Path((account, project)): Path<(String, String)>,
) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = account_call(&world, &headers, &account) {
        return refused;
    }
    if !world.projects.contains_key(&project) {
        return not_found(&project);
    }
    world.next += 1;
    let jwt = format!("eyJhbGciOiJIUzI1NiJ9.{project}.{}", world.next);
    world.jwts.insert(jwt.clone(), project);
    ok(json!({"jwt": jwt}))
}

async fn check_missing(
    State(world): Shared,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let world = world.lock().unwrap();
    if let Some(refused) = jwt_refusal(&world, &headers) {
        return refused;
    }
    let missing: Vec<&str> = body["hashes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|hash| !world.assets.contains_key(*hash))
        .collect();
    ok(json!(missing))
}

async fn upload(State(world): Shared, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = jwt_refusal(&world, &headers) {
        return refused;
    }
    let Some(files) = body.as_array() else {
        return error(
            StatusCode::BAD_REQUEST,
            8_000_096,
            "Expected an array of files.",
        );
    };
    for file in files {
        let key = file["key"].as_str().unwrap_or_default();
        let value = file["value"].as_str().unwrap_or_default();
        let decodes = base64::engine::general_purpose::STANDARD
            .decode(value)
            .is_ok();
        if key.len() != 32
            || !key.chars().all(|c| c.is_ascii_hexdigit())
            || !decodes
            || file["base64"] != true
        {
            return error(
                StatusCode::BAD_REQUEST,
                8_000_096,
                &format!("Invalid file: {key}"),
            );
        }
        let kind = file["metadata"]["contentType"].as_str().unwrap_or_default();
        world
            .assets
            .insert(key.to_owned(), (value.to_owned(), kind.to_owned()));
        world.uploads += 1;
    }
    ok(json!({"successful_key_count": files.len(), "unsuccessful_keys": []}))
}

async fn upsert(State(world): Shared, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = jwt_refusal(&world, &headers) {
        return refused;
    }
    for hash in body["hashes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        world.upserted.insert(hash.to_owned());
    }
    ok(json!(true))
}

/// wrangler's name for `base64` content at `path`.
fn wrangler_hash(base64: &str, path: &str) -> String {
    let extension = path.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    let mut hasher = blake3::Hasher::new();
    hasher.update(base64.as_bytes());
    hasher.update(extension.as_bytes());
    hasher.finalize().to_hex().as_str()[..32].to_owned()
}

async fn deploy(
    State(world): Shared,
    headers: HeaderMap,
    Path((account, project)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = account_call(&world, &headers, &account) {
        return refused;
    }
    if !world.projects.contains_key(&project) {
        return not_found(&project);
    }
    let parts = multipart(&headers, &body);
    let Some(manifest) = parts
        .get("manifest")
        .and_then(|m| serde_json::from_str::<BTreeMap<String, String>>(m).ok())
    else {
        return error(
            StatusCode::BAD_REQUEST,
            8_000_096,
            "A manifest is required.",
        );
    };
    let mut files = BTreeMap::new();
    for (path, hash) in &manifest {
        let Some((content, _)) = world.assets.get(hash) else {
            return error(
                StatusCode::BAD_REQUEST,
                8_000_096,
                &format!(
                    "Failed to publish your deployment: {path} names {hash}, which was never uploaded"
                ),
            );
        };
        if wrangler_hash(content, path) != *hash || !path.starts_with('/') {
            return error(
                StatusCode::BAD_REQUEST,
                8_000_096,
                &format!("Failed to publish your deployment: {path} does not hash to {hash}"),
            );
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(content)
            .unwrap();
        files.insert(path.clone(), bytes);
    }
    world.next += 1;
    let id = format!("deployment-{}", world.next);
    world.deployments.push(Deployment {
        project: project.clone(),
        manifest,
        files,
    });
    ok(
        json!({"id": id, "url": format!("https://{id}.{project}.pages.dev"), "environment": "production"}),
    )
}

/// A `multipart/form-data` body's text fields, by name.
fn multipart(headers: &HeaderMap, body: &[u8]) -> HashMap<String, String> {
    let boundary = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split("boundary=").nth(1))
        .map(|b| b.trim_matches('"').to_owned())
        .unwrap_or_default();
    let text = String::from_utf8_lossy(body);
    let mut fields = HashMap::new();
    if boundary.is_empty() {
        return fields;
    }
    for part in text.split(&format!("--{boundary}")) {
        let Some((head, content)) = part.split_once("\r\n\r\n") else {
            continue;
        };
        let name = head
            .split("name=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next());
        if let Some(name) = name {
            fields.insert(name.to_owned(), content.trim_end_matches("\r\n").to_owned());
        }
    }
    fields
}

async fn list_domains(
    State(world): Shared,
    headers: HeaderMap,
    Path((account, project)): Path<(String, String)>,
) -> Response {
    let world = world.lock().unwrap();
    if let Some(refused) = account_call(&world, &headers, &account) {
        return refused;
    }
    match world.projects.get(&project) {
        Some(domains) => ok(json!(
            domains
                .iter()
                .map(|name| json!({"name": name, "status": "active"}))
                .collect::<Vec<_>>()
        )),
        None => not_found(&project),
    }
}

async fn add_domain(
    State(world): Shared,
    headers: HeaderMap,
    Path((account, project)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = account_call(&world, &headers, &account) {
        return refused;
    }
    let name = body["name"].as_str().unwrap_or_default().to_owned();
    let Some(domains) = world.projects.get_mut(&project) else {
        return not_found(&project);
    };
    if domains.contains(&name) {
        return error(
            StatusCode::CONFLICT,
            8_000_018,
            "You have already added this custom domain.",
        );
    }
    domains.push(name.clone());
    ok(json!({"name": name, "status": "initializing"}))
}

/// The zone and token are right, or the refusal.
fn zone_call(world: &World, headers: &HeaderMap, zone: &str) -> Option<Response> {
    if bearer(headers) != Some(world.token.as_str()) {
        return Some(error(StatusCode::FORBIDDEN, 10_000, "Authentication error"));
    }
    (zone != world.zone).then(|| {
        error(
            StatusCode::NOT_FOUND,
            7003,
            "Could not route to /zones, perhaps your object identifier is invalid?",
        )
    })
}

async fn list_records(
    State(world): Shared,
    headers: HeaderMap,
    Path(zone): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let world = world.lock().unwrap();
    if let Some(refused) = zone_call(&world, &headers, &zone) {
        return refused;
    }
    let matching: Vec<Value> = world
        .records
        .iter()
        .filter(|r| query.get("type").is_none_or(|t| *t == r.kind))
        .filter(|r| query.get("name").is_none_or(|n| *n == r.name))
        .map(
            |r| json!({"type": r.kind, "name": r.name, "content": r.content, "proxied": r.proxied}),
        )
        .collect();
    ok(json!(matching))
}

async fn create_record(
    State(world): Shared,
    headers: HeaderMap,
    Path(zone): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = zone_call(&world, &headers, &zone) {
        return refused;
    }
    let record = DnsRecord {
        kind: body["type"].as_str().unwrap_or_default().to_owned(),
        name: body["name"].as_str().unwrap_or_default().to_owned(),
        content: body["content"].as_str().unwrap_or_default().to_owned(),
        proxied: body["proxied"] == true,
    };
    if record.kind != "CNAME" || record.name.is_empty() || record.content.is_empty() {
        return error(StatusCode::BAD_REQUEST, 9_000, "DNS name is invalid.");
    }
    if world.records.iter().any(|r| r.name == record.name) {
        return error(
            StatusCode::BAD_REQUEST,
            81_053,
            "An A, AAAA, or CNAME record with that host already exists.",
        );
    }
    world.records.push(record.clone());
    envelope(
        StatusCode::OK,
        json!({"id": format!("record-{}", world.records.len()), "type": record.kind,
               "name": record.name, "content": record.content, "proxied": record.proxied}),
    )
}
