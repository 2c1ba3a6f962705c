//! A loopback stand-in for the X API, over real HTTP, enforcing X's rules:
//!
//! - OAuth 2.0 user tokens: every call needs the current bearer token; the
//!   token endpoint (`POST /2/oauth2/token`, form-encoded,
//!   `grant_type=refresh_token`) takes the current refresh token and the
//!   app's client id, and rotates both (the old ones stop working);
//!   [`FakeX::expire_token`] makes the access token stale (401);
//! - posts (`POST /2/tweets`): at most 280 weighted characters (a URL
//!   counts 23; characters outside the Latin and punctuation ranges count
//!   2), media ids must come from an upload, a poll has 2–4 options of at
//!   most 25 characters and lasts 5–10080 minutes;
//! - media (`POST /2/media/upload`, JSON with the base64 `media`);
//! - the profile (v1.1 `account/update_profile`, `update_profile_image`,
//!   `update_profile_banner`, form-encoded);
//! - mentions (`GET /2/users/{id}/mentions`): newest first, `since_id`,
//!   `max_results` 5–100 (10 by default), `next_token` pagination;
//! - a post's poll (`GET /2/tweets/{id}?expansions=attachments.poll_ids`).

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

/// The app's client id the token endpoint accepts.
pub const CLIENT_ID: &str = "ulias-test-client";

/// One post received.
#[derive(Debug, Clone)]
pub struct Post {
    pub id: String,
    pub text: String,
    pub reply_to: Option<String>,
    pub media_ids: Vec<String>,
    /// A poll's options, when the post is one.
    pub poll: Option<Vec<String>>,
    pub at: Instant,
}

/// The profile as last changed.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub name: Option<String>,
    pub bio: Option<String>,
    /// Bytes of the picture and banner uploaded.
    pub picture: Option<Vec<u8>>,
    pub banner: Option<Vec<u8>>,
}

#[derive(Default)]
struct World {
    token: String,
    refresh: String,
    refreshes: usize,
    posts: Vec<Post>,
    media: HashMap<String, Vec<u8>>,
    profile: Profile,
    votes: HashMap<String, Vec<u64>>,
    mentions: Vec<(u64, String)>,
    next: u64,
}

/// A running stand-in that accepts one user token at a time.
#[derive(Clone)]
pub struct FakeX {
    /// The API's base URL (`http://127.0.0.1:PORT/`).
    pub url: String,
    world: Arc<Mutex<World>>,
}

type Shared = State<Arc<Mutex<World>>>;

impl FakeX {
    /// A stand-in whose current access token is `token` (refresh token
    /// `refresh-<token>`).
    pub async fn start(token: &str) -> Self {
        let world = Arc::new(Mutex::new(World {
            token: token.to_owned(),
            refresh: format!("refresh-{token}"),
            next: 1_000,
            ..World::default()
        }));
        let app = Router::new()
            .route("/2/tweets", post(create))
            .route("/2/tweets/{id}", get(read_post))
            .route("/2/media/upload", post(upload))
            .route("/2/oauth2/token", post(token_endpoint))
            .route("/1.1/account/update_profile.json", post(update_profile))
            .route("/1.1/account/update_profile_image.json", post(update_image))
            .route(
                "/1.1/account/update_profile_banner.json",
                post(update_banner),
            )
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

    fn world(&self) -> std::sync::MutexGuard<'_, World> {
        self.world.lock().unwrap()
    }

    /// Every post received, in order.
    pub fn posts(&self) -> Vec<Post> {
        self.world().posts.clone()
    }

    /// The profile as last changed.
    pub fn profile(&self) -> Profile {
        self.world().profile.clone()
    }

    /// The bytes of an uploaded medium.
    pub fn medium(&self, id: &str) -> Option<Vec<u8>> {
        self.world().media.get(id).cloned()
    }

    /// The current access and refresh tokens, and how many refreshes.
    pub fn tokens(&self) -> (String, String, usize) {
        let world = self.world();
        (world.token.clone(), world.refresh.clone(), world.refreshes)
    }

    /// The access token stops working (the refresh token still does).
    pub fn expire_token(&self) {
        self.world().token = format!("expired-{}", self.world_next());
    }

    /// The refresh token is revoked too: only a new connection helps.
    pub fn revoke(&self) {
        let n = self.world_next();
        let mut world = self.world();
        world.token = format!("revoked-{n}");
        world.refresh = format!("revoked-refresh-{n}");
    }

    fn world_next(&self) -> u64 {
        let mut world = self.world();
        world.next += 1;
        world.next
    }

    /// Sets a poll post's votes, option by option.
    pub fn set_votes(&self, post_id: &str, votes: &[u64]) {
        self.world()
            .votes
            .insert(post_id.to_owned(), votes.to_vec());
    }

    /// Adds a mention of the account (ids increase).
    pub fn add_mention(&self, text: &str) -> u64 {
        let mut world = self.world();
        world.next += 1;
        let id = world.next;
        world.mentions.push((id, text.to_owned()));
        id
    }
}

fn refusal(status: StatusCode, title: &str, detail: &str) -> Response {
    (status, Json(json!({"title": title, "detail": detail}))).into_response()
}

fn unauthorised(world: &World, headers: &HeaderMap) -> Option<Response> {
    let ok = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {}", world.token));
    (!ok).then(|| refusal(StatusCode::UNAUTHORIZED, "Unauthorized", "Unauthorized"))
}

/// X's weighted length, written independently of the client's.
fn weight(text: &str) -> usize {
    text.split_whitespace()
        .map(|word| {
            if word.starts_with("http://") || word.starts_with("https://") {
                23
            } else {
                word.chars()
                    .filter(|c| !matches!(u32::from(*c), 0xFE00..=0xFE0F | 0x1F3FB..=0x1F3FF))
                    .map(|c| match u32::from(c) {
                        0..=4351 | 8192..=8205 | 8208..=8223 | 8242..=8247 => 1,
                        _ => 2,
                    })
                    .sum()
            }
        })
        .sum::<usize>()
        + text.chars().filter(|c| c.is_whitespace()).count()
}

fn form(body: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect()
}

async fn create(State(world): Shared, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    let text = body["text"].as_str().unwrap_or_default().to_owned();
    if weight(&text) > 280 {
        return refusal(
            StatusCode::FORBIDDEN,
            "Forbidden",
            "You are not permitted to perform this action. (text too long)",
        );
    }
    let media_ids: Vec<String> = body["media"]["media_ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    if media_ids.len() > 4 || media_ids.iter().any(|id| !world.media.contains_key(id)) {
        return refusal(
            StatusCode::BAD_REQUEST,
            "Invalid Request",
            "unknown media id",
        );
    }
    let poll: Option<Vec<String>> = body.get("poll").map(|poll| {
        poll["options"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    });
    if let Some(options) = &poll {
        let minutes = body["poll"]["duration_minutes"].as_u64().unwrap_or(0);
        let bad_options =
            !(2..=4).contains(&options.len()) || options.iter().any(|o| o.chars().count() > 25);
        if bad_options || !(5..=10_080).contains(&minutes) {
            return refusal(StatusCode::BAD_REQUEST, "Invalid Request", "invalid poll");
        }
    }
    world.next += 1;
    let post = Post {
        id: world.next.to_string(),
        text,
        reply_to: body["reply"]["in_reply_to_tweet_id"]
            .as_str()
            .map(str::to_owned),
        media_ids,
        poll,
        at: Instant::now(),
    };
    world.posts.push(post.clone());
    (
        StatusCode::CREATED,
        Json(json!({"data": {"id": post.id, "text": post.text}})),
    )
        .into_response()
}

async fn read_post(
    State(world): Shared,
    Path(id): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    let Some(post) = world.posts.iter().find(|p| p.id == id) else {
        return refusal(StatusCode::NOT_FOUND, "Not Found Error", "no such post");
    };
    let mut answer = json!({"data": {"id": post.id, "text": post.text}});
    let expanded = uri
        .query()
        .is_some_and(|q| q.contains("attachments.poll_ids"));
    if let (Some(options), true) = (&post.poll, expanded) {
        let votes = world.votes.get(&id).cloned().unwrap_or_default();
        let options: Vec<Value> = options
            .iter()
            .enumerate()
            .map(|(i, label)| {
                json!({"position": i + 1, "label": label, "votes": votes.get(i).copied().unwrap_or(0)})
            })
            .collect();
        answer["includes"] = json!({"polls": [{"id": format!("poll-{id}"), "options": options, "voting_status": "open"}]});
    }
    Json(answer).into_response()
}

async fn upload(State(world): Shared, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    use base64::Engine as _;
    let mut world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    let bytes = body["media"]
        .as_str()
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
    let Some(bytes) = bytes.filter(|b| !b.is_empty()) else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "Invalid Request",
            "media is required",
        );
    };
    if body["media_category"] != "tweet_image" || bytes.len() > 5 * 1024 * 1024 {
        return refusal(StatusCode::BAD_REQUEST, "Invalid Request", "bad media");
    }
    world.next += 1;
    let id = world.next.to_string();
    world.media.insert(id.clone(), bytes);
    Json(json!({"data": {"id": id, "media_key": format!("3_{id}")}})).into_response()
}

async fn token_endpoint(State(world): Shared, body: String) -> Response {
    let mut world = world.lock().unwrap();
    let fields = form(&body);
    let grant = fields.get("grant_type").map(String::as_str);
    let client = fields.get("client_id").map(String::as_str);
    let refresh = fields.get("refresh_token");
    if grant != Some("refresh_token") || client != Some(CLIENT_ID) {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_request", "error_description": "Missing required parameter"})),
        )
            .into_response();
    }
    if refresh != Some(&world.refresh) {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_request", "error_description": "Value passed for the token was invalid."})),
        )
            .into_response();
    }
    world.next += 1;
    world.refreshes += 1;
    world.token = format!("access-{}", world.next);
    world.refresh = format!("refresh-{}", world.next);
    Json(json!({
        "token_type": "bearer",
        "expires_in": 7200,
        "access_token": world.token,
        "scope": "tweet.read tweet.write users.read offline.access media.write",
        "refresh_token": world.refresh,
    }))
    .into_response()
}

async fn update_profile(State(world): Shared, headers: HeaderMap, body: String) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    let fields = form(&body);
    let name = fields.get("name").cloned();
    let bio = fields.get("description").cloned();
    if name.as_ref().is_some_and(|n| n.chars().count() > 50)
        || bio.as_ref().is_some_and(|b| b.chars().count() > 160)
    {
        return refusal(StatusCode::FORBIDDEN, "Forbidden", "profile field too long");
    }
    if name.is_some() {
        world.profile.name = name;
    }
    if bio.is_some() {
        world.profile.bio = bio;
    }
    Json(json!({"id_str": "42"})).into_response()
}

fn image_field(body: &str, field: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let fields = form(body);
    base64::engine::general_purpose::STANDARD
        .decode(fields.get(field)?)
        .ok()
        .filter(|b| !b.is_empty())
}

async fn update_image(State(world): Shared, headers: HeaderMap, body: String) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    match image_field(&body, "image") {
        Some(bytes) if bytes.len() <= 700 * 1024 => {
            world.profile.picture = Some(bytes);
            Json(json!({"id_str": "42"})).into_response()
        }
        _ => refusal(
            StatusCode::BAD_REQUEST,
            "Bad Request",
            "image is required (< 700 KB)",
        ),
    }
}

async fn update_banner(State(world): Shared, headers: HeaderMap, body: String) -> Response {
    let mut world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    match image_field(&body, "banner") {
        Some(bytes) => {
            world.profile.banner = Some(bytes);
            StatusCode::CREATED.into_response()
        }
        None => refusal(StatusCode::BAD_REQUEST, "Bad Request", "banner is required"),
    }
}

async fn mentions(
    State(world): Shared,
    Path(_user): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let world = world.lock().unwrap();
    if let Some(refused) = unauthorised(&world, &headers) {
        return refused;
    }
    let query: HashMap<String, String> =
        url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let since: u64 = query
        .get("since_id")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let per_page: usize = match query.get("max_results").map(|m| m.parse::<usize>()) {
        None => 10,
        Some(Ok(n)) if (5..=100).contains(&n) => n,
        Some(_) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "Invalid Request",
                "max_results: 5–100",
            );
        }
    };
    let skip: usize = query
        .get("pagination_token")
        .and_then(|t| t.strip_prefix("page-"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let newer: Vec<&(u64, String)> = world
        .mentions
        .iter()
        .rev()
        .filter(|(id, _)| *id > since)
        .collect();
    let page: Vec<Value> = newer
        .iter()
        .skip(skip)
        .take(per_page)
        .map(|(id, text)| json!({"id": id.to_string(), "text": text, "author_id": "777"}))
        .collect();
    let mut meta = json!({"result_count": page.len()});
    if skip + per_page < newer.len() {
        meta["next_token"] = json!(format!("page-{}", skip + per_page));
    }
    if page.is_empty() {
        return Json(json!({"meta": meta})).into_response();
    }
    Json(json!({"data": page, "meta": meta})).into_response()
}
