//! Loopback stand-ins for what the infra and research tools reach, over
//! real HTTP with the real services' answer shapes: the Docker Engine on a
//! Unix socket in a temporary folder ([`FakeDocker`]), Loki and Proxmox
//! ([`FakeLoki`], [`FakeProxmox`]), SearXNG, a connectors API and the GPU
//! job server ([`FakeSearxng`], [`FakeConnectors`], [`FakeJobs`]). Each
//! records the requests it received.

mod docker;
mod research;
mod services;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::Uri;
use axum::middleware::{self, Next};
use axum::response::Response;

pub use docker::FakeDocker;
pub use research::{CONNECTORS_KEY, FakeConnectors, FakeJobs, FakeSearxng};
pub use services::{FakeLoki, FakeProxmox, PROXMOX_TOKEN_ID, PROXMOX_TOKEN_SECRET};

/// One request a stand-in received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    /// The path and query, as sent.
    pub target: String,
    pub authorization: Option<String>,
}

/// The requests a stand-in received, in order.
#[derive(Debug, Clone, Default)]
pub struct Requests(Arc<Mutex<Vec<Received>>>);

impl Requests {
    pub fn all(&self) -> Vec<Received> {
        self.0.lock().unwrap().clone()
    }

    /// The targets (`GET /path?query`) received.
    pub fn targets(&self) -> Vec<String> {
        self.all()
            .into_iter()
            .map(|r| format!("{} {}", r.method, r.target))
            .collect()
    }
}

async fn record(State(requests): State<Requests>, request: Request, next: Next) -> Response {
    let received = Received {
        method: request.method().to_string(),
        target: request
            .uri()
            .path_and_query()
            .map(ToString::to_string)
            .unwrap_or_default(),
        authorization: request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    };
    requests.0.lock().unwrap().push(received);
    next.run(request).await
}

/// Serves `app` on a loopback port, recording its requests; returns its
/// base URL (`http://127.0.0.1:PORT/`).
async fn serve(app: Router, requests: &Requests) -> String {
    let app = app.layer(middleware::from_fn_with_state(requests.clone(), record));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}/")
}

/// The query of `uri`, decoded.
fn query_of(uri: &Uri) -> HashMap<String, String> {
    url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}
