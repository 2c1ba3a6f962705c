//! A loopback stand-in for the X API v2, over real HTTP: posting
//! (`POST /2/tweets`, with a bearer user token) and an account's mentions
//! (`GET /2/users/{id}/mentions`, newest first, `since_id`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test support fails loudly

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

/// One post received.
#[derive(Debug, Clone)]
pub struct Post {
    pub id: String,
    pub text: String,
    pub reply_to: Option<String>,
    pub at: Instant,
}

#[derive(Default)]
struct World {
    token: String,
    posts: Vec<Post>,
    mentions: Vec<(u64, String)>,
    next: u64,
}

/// A running stand-in that accepts one user token.
#[derive(Clone)]
pub struct FakeX {
    /// The API's base URL (`http://127.0.0.1:PORT/`).
    pub url: String,
    world: Arc<Mutex<World>>,
}

impl FakeX {
    pub async fn start(token: &str) -> Self {
        let world = Arc::new(Mutex::new(World {
            token: token.to_owned(),
            next: 1_000,
            ..World::default()
        }));
        let app = Router::new()
            .route("/2/tweets", post(create))
            .route("/2/users/{id}/mentions", get(mentions))
            .with_state(world.clone());
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            url: format!("http://{address}/"),
            world,
        }
    }

    /// Every post received, in order.
    pub fn posts(&self) -> Vec<Post> {
        self.world.lock().unwrap().posts.clone()
    }

    /// Adds a mention of the account (ids increase).
    pub fn add_mention(&self, text: &str) -> u64 {
        let mut world = self.world.lock().unwrap();
        world.next += 1;
        let id = world.next;
        world.mentions.push((id, text.to_owned()));
        id
    }
}

fn authorised(world: &World, headers: &HeaderMap) -> bool {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {}", world.token))
}

async fn create(
    State(world): State<Arc<Mutex<World>>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let mut world = world.lock().unwrap();
    if !authorised(&world, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"title": "Unauthorized"})),
        )
            .into_response();
    }
    world.next += 1;
    let post = Post {
        id: world.next.to_string(),
        text: body["text"].as_str().unwrap_or_default().to_owned(),
        reply_to: body["reply"]["in_reply_to_tweet_id"]
            .as_str()
            .map(str::to_owned),
        at: Instant::now(),
    };
    world.posts.push(post.clone());
    (
        StatusCode::CREATED,
        Json(json!({"data": {"id": post.id, "text": post.text}})),
    )
        .into_response()
}

async fn mentions(
    State(world): State<Arc<Mutex<World>>>,
    Path(_user): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let world = world.lock().unwrap();
    if !authorised(&world, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"title": "Unauthorized"})),
        )
            .into_response();
    }
    let query: HashMap<String, String> =
        url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let since: u64 = query
        .get("since_id")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let data: Vec<Value> = world
        .mentions
        .iter()
        .rev()
        .filter(|(id, _)| *id > since)
        .map(|(id, text)| json!({"id": id.to_string(), "text": text, "author_id": "777"}))
        .collect();
    Json(json!({"data": data, "meta": {"result_count": data.len()}})).into_response()
}
