//! A service of ours on loopback, whose health endpoint can be switched
//! off and on: `GET /health` answers 200 `ok` while up, 503 `down` while
//! down, as a real service behind a health check would.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

#[derive(Default)]
struct Health {
    down: AtomicBool,
    hits: AtomicUsize,
}

/// A running service.
pub struct FakeService {
    pub addr: SocketAddr,
    health: Arc<Health>,
}

impl FakeService {
    /// Starts it, up.
    pub async fn start() -> Self {
        let health = Arc::new(Health::default());
        let app = Router::new()
            .route("/health", get(answer))
            .with_state(health.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, health }
    }

    /// Its health address.
    pub fn health_url(&self) -> url::Url {
        url::Url::parse(&format!("http://{}/health", self.addr)).unwrap()
    }

    /// Takes it down (503) or brings it back (200).
    pub fn set_down(&self, down: bool) {
        self.health.down.store(down, Ordering::SeqCst);
    }

    /// How many health requests it answered.
    pub fn hits(&self) -> usize {
        self.health.hits.load(Ordering::SeqCst)
    }
}

async fn answer(State(health): State<Arc<Health>>) -> (StatusCode, &'static str) {
    health.hits.fetch_add(1, Ordering::SeqCst);
    if health.down.load(Ordering::SeqCst) {
        (StatusCode::SERVICE_UNAVAILABLE, "down")
    } else {
        (StatusCode::OK, "ok")
    }
}
