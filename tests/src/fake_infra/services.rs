//! Loki and Proxmox stand-ins.
//!
//! Loki answers `GET /loki/api/v1/query_range` with two streams (three
//! lines of `{app="api"}`, one of `{app="worker"}`), at most `limit` lines,
//! as Loki's `streams` result. Proxmox answers `/api2/json/nodes`,
//! `/nodes/{node}/qemu|lxc` and `POST …/{vmid}/status/{action}` (a task
//! id), and 401 to a request without the token it was started with.

use std::sync::{Arc, Mutex};

use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::{Requests, query_of, serve};

/// A running Loki stand-in.
pub struct FakeLoki {
    pub url: String,
    pub requests: Requests,
}

/// The lines it holds: (app, nanoseconds, line).
const LINES: &[(&str, &str, &str)] = &[
    ("api", "1796200800000000000", "GET /orders 200"),
    ("api", "1796200860000000000", "error: database is locked"),
    ("api", "1796200920000000000", "GET /orders 500 <script>"),
    ("worker", "1796200890000000000", "job 7 done"),
];

impl FakeLoki {
    pub async fn start() -> Self {
        let requests = Requests::default();
        let app = Router::new().route("/loki/api/v1/query_range", get(query_range));
        let url = serve(app, &requests).await;
        Self { url, requests }
    }
}

async fn query_range(uri: Uri) -> Response {
    let query = query_of(&uri);
    if query.get("query").is_none_or(|q| !q.starts_with('{')) {
        let message = "parse error : syntax error: unexpected IDENTIFIER";
        return (StatusCode::BAD_REQUEST, message).into_response();
    }
    let limit: usize = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(100);
    let mut newest: Vec<_> = LINES.to_vec();
    newest.sort_by_key(|line| std::cmp::Reverse(line.1));
    newest.truncate(limit);
    let result: Vec<Value> = ["api", "worker"]
        .into_iter()
        .filter_map(|app| {
            let values: Vec<Value> = newest
                .iter()
                .filter(|(a, ..)| *a == app)
                .map(|(_, ns, line)| json!([ns, line]))
                .collect();
            (!values.is_empty())
                .then(|| json!({"stream": {"app": app, "level": "info"}, "values": values}))
        })
        .collect();
    Json(
        json!({"status": "success", "data": {"resultType": "streams", "result": result,
        "stats": {"summary": {"totalLinesProcessed": LINES.len()}}}}),
    )
    .into_response()
}

/// A running Proxmox stand-in with node `pve1` (online: VM 101 `web`
/// running, container 200 `dns` running) and `pve2` (offline).
pub struct FakeProxmox {
    pub url: String,
    pub requests: Requests,
    actions: Actions,
}

/// The token the stand-in accepts.
pub const PROXMOX_TOKEN_ID: &str = "ulias@pve!agents";
pub const PROXMOX_TOKEN_SECRET: &str = "5d8f0b7e-1c1f-4f3a-9b8e-2f1f0c0e7a11";

/// An action asked: `(node, kind, vmid, action)`.
pub type Action = (String, String, u32, String);

type Actions = Arc<Mutex<Vec<Action>>>;

impl FakeProxmox {
    pub async fn start() -> Self {
        let requests = Requests::default();
        let actions = Actions::default();
        let app = Router::new()
            .route("/api2/json/nodes", get(nodes))
            .route("/api2/json/nodes/{node}/{kind}", get(guests))
            .route(
                "/api2/json/nodes/{node}/{kind}/{vmid}/status/{action}",
                post(act),
            )
            .with_state(actions.clone())
            .layer(middleware::from_fn(authenticate));
        let url = serve(app, &requests).await;
        Self {
            url,
            requests,
            actions,
        }
    }

    /// The actions asked, `(node, kind, vmid, action)`.
    pub fn actions(&self) -> Vec<Action> {
        self.actions.lock().unwrap().clone()
    }
}

async fn authenticate(request: Request, next: Next) -> Response {
    let expected = format!("PVEAPIToken={PROXMOX_TOKEN_ID}={PROXMOX_TOKEN_SECRET}");
    let given = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok());
    if given != Some(expected.as_str()) {
        return (StatusCode::UNAUTHORIZED, "authentication failure").into_response();
    }
    next.run(request).await
}

async fn nodes() -> Json<Value> {
    Json(json!({"data": [
        {"node": "pve2", "status": "offline", "type": "node", "id": "node/pve2"},
        {"node": "pve1", "status": "online", "type": "node", "id": "node/pve1",
         "cpu": 0.0512, "maxcpu": 8, "mem": 8_589_934_592_u64, "maxmem": 34_359_738_368_u64,
         "uptime": 86_400}
    ]}))
}

async fn guests(Path((node, kind)): Path<(String, String)>) -> Response {
    if node != "pve1" {
        let body = json!({"data": null, "message": format!("hostname lookup '{node}' failed\n")});
        return (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response();
    }
    let data = match kind.as_str() {
        "qemu" => json!([{"vmid": 101, "name": "web", "status": "running", "cpu": 0.25,
                          "cpus": 2, "mem": 1_073_741_824_u64, "maxmem": 4_294_967_296_u64,
                          "uptime": 3600}]),
        "lxc" => json!([{"vmid": "200", "name": "dns", "status": "running", "type": "lxc",
                         "cpu": 0.01, "mem": 67_108_864_u64, "maxmem": 536_870_912_u64,
                         "uptime": 7200}]),
        _ => return StatusCode::NOT_IMPLEMENTED.into_response(),
    };
    Json(json!({"data": data})).into_response()
}

async fn act(
    State(actions): State<Actions>,
    Path((node, kind, vmid, action)): Path<(String, String, u32, String)>,
) -> Json<Value> {
    let upid = format!("UPID:{node}:0000A1B2:00C3D4E5:6763F000:q{action}:{vmid}:ulias@pve!agents:");
    actions.lock().unwrap().push((node, kind, vmid, action));
    Json(json!({"data": upid}))
}
