//! A loopback stand-in for an ntfy server, over real HTTP: JSON publishing
//! (`POST /`), plain publishing (`POST /<topic>`, the body is the message),
//! and a topic's JSON stream (`GET /<topic>/json`) with `since=<id>` and
//! `poll=1`, an `open` event first and keepalives. Tests read what was
//! published, "tap" an action by sending its request, and drop every open
//! stream to check that the subscriber resumes.
//!
//! It keeps ntfy 2.x's rules: once a token is granted access
//! ([`FakeNtfy::grant`]) anonymous access is denied (403) and an unknown
//! token is refused (401); a message over 4,096 bytes is refused (400).
//! Tests can make it refuse publishing (429) or be down (502 from the proxy
//! in front of it, every stream dropped).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test support fails loudly

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

/// One message stored on a topic.
#[derive(Debug, Clone)]
pub struct Published {
    pub id: String,
    pub topic: String,
    pub message: String,
    /// The whole JSON publish request, or the headers of a plain one.
    pub request: Value,
    pub authorization: Option<String>,
}

/// ntfy's limit on a message's size.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// What a token may do on a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

#[derive(Default)]
struct World {
    /// token → topic → access; empty: everyone may do everything.
    grants: HashMap<String, HashMap<String, Access>>,
    /// Set by [`FakeNtfy::refuse_publishing`]: publishes answered 429.
    refusing_publishes: bool,
    /// Set by [`FakeNtfy::set_down`]: every request answered 502.
    down: bool,
    /// Publish requests refused (429, 400, 401, 403, down).
    publishes_refused: usize,
    messages: Vec<Published>,
    next: u64,
    streams_opened: usize,
    /// Set by [`FakeNtfy::refuse_streams`]: subscriptions answered 429.
    refusing: bool,
    /// Subscriptions asked for, refused ones included.
    streams_asked: usize,
}

struct Shared {
    world: Mutex<World>,
    new_messages: broadcast::Sender<Published>,
    drop_streams: broadcast::Sender<()>,
}

/// A running stand-in.
#[derive(Clone)]
pub struct FakeNtfy {
    /// The server's base URL (`http://127.0.0.1:PORT/`).
    pub url: String,
    shared: Arc<Shared>,
}

impl FakeNtfy {
    pub async fn start() -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let shared = Arc::new(Shared {
            world: Mutex::new(World::default()),
            new_messages: broadcast::channel(256).0,
            drop_streams: broadcast::channel(4).0,
        });
        let app = Router::new()
            .route("/", post(publish_json))
            .route("/{topic}", post(publish_plain))
            .route("/{topic}/json", get(stream))
            .layer(middleware::from_fn_with_state(shared.clone(), proxy))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            url: format!("http://{address}/"),
            shared,
        }
    }

    /// Every message published, in order.
    pub fn published(&self) -> Vec<Published> {
        self.shared.world.lock().unwrap().messages.clone()
    }

    /// The messages of one topic.
    pub fn on_topic(&self, topic: &str) -> Vec<Published> {
        self.published()
            .into_iter()
            .filter(|m| m.topic == topic)
            .collect()
    }

    /// How many streams were opened (a reconnect opens another).
    pub fn streams_opened(&self) -> usize {
        self.shared.world.lock().unwrap().streams_opened
    }

    /// Refuses every subscription with 429, as ntfy's per-IP limit does
    /// (or accepts them again).
    pub fn refuse_streams(&self, refusing: bool) {
        self.shared.world.lock().unwrap().refusing = refusing;
    }

    /// How many subscriptions were asked for, refused ones included.
    pub fn streams_asked(&self) -> usize {
        self.shared.world.lock().unwrap().streams_asked
    }

    /// Gives `token` access to `topic`. From the first grant on, requests
    /// without a token are refused, as on a server with `auth-default-access: deny-all`.
    pub fn grant(&self, token: &str, topic: &str, access: Access) {
        self.shared
            .world
            .lock()
            .unwrap()
            .grants
            .entry(token.to_owned())
            .or_default()
            .insert(topic.to_owned(), access);
    }

    /// Refuses every publish with 429, as ntfy's per-IP limit does (or
    /// accepts them again).
    pub fn refuse_publishing(&self, refusing: bool) {
        self.shared.world.lock().unwrap().refusing_publishes = refusing;
    }

    /// Takes the server down (every request answered 502 by the proxy in
    /// front of it, every stream closed) or brings it back.
    pub fn set_down(&self, down: bool) {
        self.shared.world.lock().unwrap().down = down;
        if down {
            self.drop_streams();
        }
    }

    /// How many publish requests were refused.
    pub fn publishes_refused(&self) -> usize {
        self.shared.world.lock().unwrap().publishes_refused
    }

    /// Closes every open stream, as a network drop would.
    pub fn drop_streams(&self) {
        let _ = self.shared.drop_streams.send(());
    }

    /// Waits until a message matching `pred` is published.
    pub async fn wait_for(
        &self,
        pred: impl Fn(&Published) -> bool,
        timeout: Duration,
    ) -> Option<Published> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(found) = self.published().into_iter().find(|m| pred(m)) {
                return Some(found);
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends the request an `http` action button describes, as a phone
    /// does when it is tapped. Returns the status.
    pub async fn tap(&self, action: &Value) -> u16 {
        let client = reqwest::Client::new();
        let mut request = client
            .post(action["url"].as_str().unwrap())
            .body(action["body"].as_str().unwrap_or_default().to_owned());
        if let Some(headers) = action["headers"].as_object() {
            for (name, value) in headers {
                request = request.header(name, value.as_str().unwrap());
            }
        }
        request.send().await.unwrap().status().as_u16()
    }
}

fn store(
    shared: &Shared,
    topic: &str,
    message: String,
    request: Value,
    authorization: Option<String>,
) -> Published {
    let published = {
        let mut world = shared.world.lock().unwrap();
        world.next += 1;
        let published = Published {
            id: format!("msg{:04}", world.next),
            topic: topic.to_owned(),
            message,
            request,
            authorization,
        };
        world.messages.push(published.clone());
        published
    };
    let _ = shared.new_messages.send(published.clone());
    published
}

/// Answers every request 502 while the server is down.
async fn proxy(
    State(shared): State<Arc<Shared>>,
    request: axum::extract::Request,
    next: Next,
) -> Response {
    let down = shared.world.lock().unwrap().down;
    if down {
        if request.method() == axum::http::Method::POST {
            shared.world.lock().unwrap().publishes_refused += 1;
        }
        return (StatusCode::BAD_GATEWAY, "502 Bad Gateway").into_response();
    }
    next.run(request).await
}

fn refusal(status: StatusCode, code: u32, error: &str) -> Response {
    let body = json!({"code": code, "http": status.as_u16(), "error": error});
    (status, Json(body)).into_response()
}

/// ntfy's access check: `None` when `headers` may `want` on `topic`.
fn denied(world: &World, headers: &HeaderMap, topic: &str, want: Access) -> Option<Response> {
    if world.grants.is_empty() {
        return None;
    }
    let Some(token) = authorization(headers)
        .as_deref()
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::to_owned)
    else {
        return Some(refusal(StatusCode::FORBIDDEN, 40301, "forbidden"));
    };
    let Some(topics) = world.grants.get(&token) else {
        return Some(refusal(StatusCode::UNAUTHORIZED, 40101, "unauthorized"));
    };
    let allowed = match (topics.get(topic), want) {
        (Some(Access::ReadWrite), _) => true,
        (Some(granted), wanted) => *granted == wanted,
        (None, _) => false,
    };
    (!allowed).then(|| refusal(StatusCode::FORBIDDEN, 40301, "forbidden"))
}

/// Why a publish to `topic` is refused, if it is (and counts it).
fn refuse_publish(
    shared: &Shared,
    headers: &HeaderMap,
    topic: &str,
    message: &str,
) -> Option<Response> {
    let mut world = shared.world.lock().unwrap();
    let refused = if world.refusing_publishes {
        Some(refusal(
            StatusCode::TOO_MANY_REQUESTS,
            42901,
            "limit reached: too many requests",
        ))
    } else if let Some(denied) = denied(&world, headers, topic, Access::Write) {
        Some(denied)
    } else if message.len() > MAX_MESSAGE_BYTES {
        Some(refusal(
            StatusCode::BAD_REQUEST,
            40000,
            "invalid request: message too large",
        ))
    } else {
        None
    };
    if refused.is_some() {
        world.publishes_refused += 1;
    }
    refused
}

fn authorization(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn event(published: &Published) -> String {
    json!({"id": published.id, "time": 0, "event": "message", "topic": published.topic, "message": published.message}).to_string() + "\n"
}

async fn publish_json(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let Some(topic) = body["topic"].as_str() else {
        return (StatusCode::BAD_REQUEST, "{\"error\":\"topic missing\"}").into_response();
    };
    let message = body["message"].as_str().unwrap_or_default().to_owned();
    if let Some(refused) = refuse_publish(&shared, &headers, topic, &message) {
        return refused;
    }
    let published = store(
        &shared,
        topic,
        message,
        body.clone(),
        authorization(&headers),
    );
    Json(json!({"id": published.id, "event": "message", "topic": topic})).into_response()
}

async fn publish_plain(
    State(shared): State<Arc<Shared>>,
    Path(topic): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let message = String::from_utf8_lossy(&body).into_owned();
    if let Some(refused) = refuse_publish(&shared, &headers, &topic, &message) {
        return refused;
    }
    let header_map: serde_json::Map<String, Value> = headers
        .iter()
        .filter_map(|(k, v)| Some((k.to_string(), json!(v.to_str().ok()?))))
        .collect();
    let published = store(
        &shared,
        &topic,
        message,
        Value::Object(header_map),
        authorization(&headers),
    );
    Json(json!({"id": published.id, "event": "message", "topic": topic})).into_response()
}

async fn stream(
    State(shared): State<Arc<Shared>>,
    Path(topic): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let query: HashMap<String, String> =
        url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let topic = topic.trim_end_matches("/json").to_owned();
    {
        let mut world = shared.world.lock().unwrap();
        world.streams_asked += 1;
        if world.refusing {
            let body =
                json!({"code": 42908, "http": 429, "error": "limit reached: too many requests"});
            return (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
        }
        if let Some(denied) = denied(&world, &headers, &topic, Access::Read) {
            return denied;
        }
    }
    let backlog: Vec<Published> = {
        let mut world = shared.world.lock().unwrap();
        world.streams_opened += 1;
        let on_topic: Vec<Published> = world
            .messages
            .iter()
            .filter(|m| m.topic == topic)
            .cloned()
            .collect();
        match query.get("since").map(String::as_str) {
            Some("all") => on_topic,
            Some(since) => match on_topic.iter().position(|m| m.id == since) {
                Some(at) => on_topic[at + 1..].to_vec(),
                None => Vec::new(),
            },
            None => Vec::new(),
        }
    };
    let poll = query.get("poll").is_some_and(|p| p == "1");
    let (tx, rx) = mpsc::channel::<Result<String, Infallible>>(64);
    let mut new_messages = shared.new_messages.subscribe();
    let mut dropped = shared.drop_streams.subscribe();
    tokio::spawn(async move {
        if !poll
            && tx
                .send(Ok(
                    json!({"id": "open", "time": 0, "event": "open", "topic": topic}).to_string()
                        + "\n",
                ))
                .await
                .is_err()
        {
            return;
        }
        for message in &backlog {
            if tx.send(Ok(event(message))).await.is_err() {
                return;
            }
        }
        if poll {
            return;
        }
        let mut keepalive = tokio::time::interval(Duration::from_millis(500));
        loop {
            tokio::select! {
                message = new_messages.recv() => match message {
                    Ok(message) if message.topic == topic => {
                        if tx.send(Ok(event(&message))).await.is_err() { return; }
                    }
                    Ok(_) => {}
                    Err(_) => return,
                },
                _ = dropped.recv() => return,
                _ = keepalive.tick() => {
                    let line = json!({"id": "ka", "time": 0, "event": "keepalive", "topic": topic}).to_string() + "\n";
                    if tx.send(Ok(line)).await.is_err() { return; }
                }
            }
        }
    });
    Response::builder()
        .header("content-type", "application/x-ndjson")
        .body(Body::from_stream(ReceiverStream::new(rx)))
        .unwrap()
}
