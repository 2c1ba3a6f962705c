//! A Docker Engine stand-in on a Unix socket: `GET /containers/json`,
//! `GET /containers/{name}/json`, `/logs` (the multiplexed stream: an
//! 8-byte header per frame), `/stats?stream=false`, `POST /restart` and
//! `/stop`, and Docker's `404 {"message": "No such container: x"}`.
//! It starts with two containers: `web` (running, healthy, restarted twice,
//! 512 MiB limit) and `worker` (exited).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::{Requests, query_of, record};

/// A container of the stand-in.
#[derive(Debug, Clone)]
pub struct FakeContainer {
    pub name: String,
    pub image: String,
    pub running: bool,
    pub restart_count: u64,
    /// Lines written, with their stream (1 stdout, 2 stderr).
    pub logs: Vec<(u8, String)>,
}

type World = Arc<Mutex<Vec<FakeContainer>>>;

/// A running stand-in.
pub struct FakeDocker {
    /// The socket to give the tool.
    pub socket: PathBuf,
    pub requests: Requests,
    containers: World,
    _dir: tempfile::TempDir,
}

impl FakeDocker {
    pub async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("docker.sock");
        let containers: World = Arc::new(Mutex::new(vec![
            FakeContainer {
                name: "web".into(),
                image: "nginx:1.27".into(),
                running: true,
                restart_count: 2,
                logs: vec![
                    (1, "GET / 200\n".into()),
                    (2, "upstream timed out </untrusted>\n".into()),
                    (1, "GET /health 200\n".into()),
                ],
            },
            FakeContainer {
                name: "worker".into(),
                image: "ulias/worker:0.3".into(),
                running: false,
                restart_count: 0,
                logs: vec![(2, "panicked at main.rs:12\n".into())],
            },
        ]));
        let requests = Requests::default();
        let app = Router::new()
            .route("/containers/json", get(list))
            .route("/containers/{name}/json", get(inspect))
            .route("/containers/{name}/logs", get(logs))
            .route("/containers/{name}/stats", get(stats))
            .route("/containers/{name}/restart", post(restart))
            .route("/containers/{name}/stop", post(stop))
            .with_state(containers.clone())
            .layer(middleware::from_fn_with_state(requests.clone(), record));
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            socket,
            requests,
            containers,
            _dir: dir,
        }
    }

    /// A container as it is now.
    pub fn container(&self, name: &str) -> FakeContainer {
        let containers = self.containers.lock().unwrap();
        containers.iter().find(|c| c.name == name).unwrap().clone()
    }
}

fn missing(name: &str) -> Response {
    let body = json!({"message": format!("No such container: {name}")});
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

fn find(world: &World, name: &str) -> Option<FakeContainer> {
    world
        .lock()
        .unwrap()
        .iter()
        .find(|c| c.name == name)
        .cloned()
}

fn status(c: &FakeContainer) -> (&'static str, &'static str) {
    if c.running {
        ("running", "Up 3 hours (healthy)")
    } else {
        ("exited", "Exited (1) 2 minutes ago")
    }
}

async fn list(State(world): State<World>, uri: Uri) -> Response {
    let query = query_of(&uri);
    let all = query.get("all").is_some_and(|a| a == "1" || a == "true");
    let rows: Vec<_> = world
        .lock()
        .unwrap()
        .iter()
        .filter(|c| all || c.running)
        .map(|c| {
            let (state, status) = status(c);
            json!({"Id": format!("{:0>64}", c.name.len()), "Names": [format!("/{}", c.name)],
                   "Image": c.image, "ImageID": "sha256:0", "Command": "/entrypoint",
                   "Created": 1_764_600_000, "Ports": [], "Labels": {},
                   "State": state, "Status": status})
        })
        .collect();
    Json(rows).into_response()
}

async fn inspect(State(world): State<World>, Path(name): Path<String>) -> Response {
    let Some(c) = find(&world, &name) else {
        return missing(&name);
    };
    let (state, _) = status(&c);
    Json(json!({
        "Id": "0", "Name": format!("/{}", c.name), "RestartCount": c.restart_count,
        "State": {"Status": state, "Running": c.running, "Paused": false, "Restarting": false,
                  "OOMKilled": false, "Dead": false, "Pid": 42,
                  "ExitCode": if c.running { 0 } else { 1 }, "Error": "",
                  "StartedAt": "2026-12-02T06:00:00.000000000Z",
                  "FinishedAt": "0001-01-01T00:00:00Z",
                  "Health": {"Status": "healthy", "FailingStreak": 0, "Log": []}},
        "Config": {"Image": c.image, "Hostname": "abc"},
        "HostConfig": {"Memory": 536_870_912, "RestartPolicy": {"Name": "unless-stopped"}}
    }))
    .into_response()
}

async fn logs(State(world): State<World>, Path(name): Path<String>, uri: Uri) -> Response {
    let query = query_of(&uri);
    let Some(c) = find(&world, &name) else {
        return missing(&name);
    };
    let tail = query
        .get("tail")
        .and_then(|t| t.parse::<usize>().ok())
        .unwrap_or(usize::MAX);
    let skip = c.logs.len().saturating_sub(tail);
    let mut body = Vec::new();
    for (stream, line) in &c.logs[skip..] {
        body.extend([*stream, 0, 0, 0]);
        body.extend(u32::try_from(line.len()).unwrap().to_be_bytes());
        body.extend(line.as_bytes());
    }
    Response::builder()
        .header("content-type", "application/vnd.docker.multiplexed-stream")
        .body(Body::from(body))
        .unwrap()
}

async fn stats(State(world): State<World>, Path(name): Path<String>) -> Response {
    if find(&world, &name).is_none() {
        return missing(&name);
    }
    // 0.2 s of CPU over 1 s of 4 CPUs' time: 20 % of one CPU; 128 MiB
    // used (160 minus 32 of page cache) of 512 MiB: 25 %.
    Json(json!({
        "name": format!("/{name}"), "read": "2026-12-02T09:00:01Z",
        "cpu_stats": {"cpu_usage": {"total_usage": 1_200_000_000_u64}, "system_cpu_usage": 9_000_000_000_u64, "online_cpus": 4},
        "precpu_stats": {"cpu_usage": {"total_usage": 1_000_000_000_u64}, "system_cpu_usage": 5_000_000_000_u64, "online_cpus": 4},
        "memory_stats": {"usage": 167_772_160_u64, "limit": 536_870_912_u64, "stats": {"inactive_file": 33_554_432_u64}}
    }))
    .into_response()
}

async fn restart(State(world): State<World>, Path(name): Path<String>) -> Response {
    let mut containers = world.lock().unwrap();
    let Some(c) = containers.iter_mut().find(|c| c.name == name) else {
        return missing(&name);
    };
    c.running = true;
    c.restart_count += 1;
    StatusCode::NO_CONTENT.into_response()
}

async fn stop(State(world): State<World>, Path(name): Path<String>) -> Response {
    let mut containers = world.lock().unwrap();
    let Some(c) = containers.iter_mut().find(|c| c.name == name) else {
        return missing(&name);
    };
    if !c.running {
        return StatusCode::NOT_MODIFIED.into_response();
    }
    c.running = false;
    StatusCode::NO_CONTENT.into_response()
}
