//! Request bodies of every JSON operation of both services, sent through the real routers
//! in-process (no sockets): the crossword service on a small English index, the cover service on
//! its built-in catalogue, each with a real redb file in a temporary folder and an account whose
//! plan has no limits, so inputs reach the body checks rather than a quota.
//!
//! The property: never a 5xx (but 503 `LANGUAGE_UNAVAILABLE` for a language without an index
//! here), and every 4xx is a problem document naming its code.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use tower_service::Service as _;

/// Both services, built once per process.
struct Services {
    _dir: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    crossword: Router,
    crossword_key: String,
    puzzle: String,
    covers: Router,
    covers_key: String,
    design: String,
}

/// The operations with a body: (service, method, path); `{puzzle}` and `{design}` stand for a
/// record of the test account.
const OPERATIONS: &[(Service, &str, &str)] = &[
    (Service::Crossword, "POST", "/api/v1/words/scores"),
    (Service::Crossword, "POST", "/api/v1/clues/bulk"),
    (Service::Crossword, "POST", "/api/v1/clues/generate"),
    (Service::Crossword, "POST", "/api/v1/fill"),
    (Service::Crossword, "POST", "/api/v1/fill/improve"),
    (Service::Crossword, "POST", "/api/v1/fill/cancel"),
    (Service::Crossword, "POST", "/api/v1/puzzles"),
    (Service::Crossword, "POST", "/api/v1/puzzles/import"),
    (Service::Crossword, "PATCH", "/api/v1/puzzles/{puzzle}"),
    (Service::Crossword, "POST", "/api/v1/puzzles/{puzzle}/publish"),
    (Service::Crossword, "GET", "/api/v1/words?"),
    (Service::Covers, "POST", "/api/compose"),
    (Service::Covers, "POST", "/api/v1/designs"),
    (Service::Covers, "POST", "/api/v1/uploads"),
    (Service::Covers, "POST", "/api/v1/designs/{design}/export"),
    (Service::Covers, "POST", "/oauth/register"),
    (Service::Covers, "GET", "/api/v1/content/search?"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Service {
    Crossword,
    Covers,
}

const UNLIMITED_CROSSWORD: &str = "[tiers.patron]\nreads_per_minute = -1\nfills_per_month = -1\n\
    puzzles_per_month = -1\nai_clues_per_month = -1\n[limits]\nopen_per_minute = -1\n";
const UNLIMITED_COVERS: &str = "[plans.patron]\ndesigns = 1000000\nuploads_library = 1000000\n\
    daily_composes = 1000000\ndaily_uploads = 1000000\ndaily_exports = 1000000\n";

fn services() -> &'static Services {
    static SERVICES: OnceLock<Services> = OnceLock::new();
    SERVICES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temporary folder");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let (crossword, crossword_key) = crossword_service(dir.path());
        let (covers, covers_key) = covers_service(dir.path());
        let mut services = Services {
            _dir: dir,
            runtime,
            crossword,
            crossword_key,
            puzzle: String::new(),
            covers,
            covers_key,
            design: String::new(),
        };
        let puzzle = br#"{"title":"Fuzz","grid":["EAT","TOE","..."]}"#;
        let (status, body) = services.send(Service::Crossword, "POST", "/api/v1/puzzles", puzzle);
        assert_eq!(status, 201, "{body}");
        services.puzzle = body["id"].as_str().expect("puzzle id").to_owned();
        let (status, body) =
            services.send(Service::Covers, "POST", "/api/v1/designs", br#"{"format":"cd","name":"Fuzz"}"#);
        assert_eq!(status, 201, "{body}");
        services.design = body["designId"].as_str().expect("design id").to_owned();
        services
    })
}

fn crossword_service(root: &std::path::Path) -> (Router, String) {
    use crossword_service::admin::{run, AdminCommand};
    let (data_dir, index_dir) = (root.join("crossword"), root.join("indexes"));
    std::fs::create_dir_all(&index_dir).expect("index folder");
    let en = crossword_lang::Language::english();
    let mut index = crossword_index::IndexWriter::new(en);
    for (word, score) in [("EAT", 60), ("TOE", 55), ("TEA", 50), ("ATE", 40), ("ETA", 45), ("OAT", 50), ("CAT", 60)] {
        let _ = index.insert(word, score);
    }
    index.write_to(&index_dir.join("en.cwi")).expect("index");
    let command = |json: Value| -> AdminCommand { serde_json::from_value(json).expect("command") };
    let account =
        run(&data_dir, &Default::default(), command(serde_json::json!({ "op": "account.create", "tier": "patron" })))
            .expect("account");
    let key = run(
        &data_dir,
        &Default::default(),
        command(serde_json::json!({ "op": "key.create", "account": account["id"], "scopes": [] })),
    )
    .expect("key");
    let options = crossword_service::server::ServeOptions {
        listen: "127.0.0.1:0".parse().expect("address"),
        data_dir,
        index_dir,
        config: crossword_service::config::Config::from_toml(UNLIMITED_CROSSWORD).expect("configuration"),
    };
    let state = crossword_service::server::state(&options, options.listen).expect("state");
    (crossword_service::api::router::router(state), key["key"].as_str().expect("secret").to_owned())
}

fn covers_service(root: &std::path::Path) -> (Router, String) {
    use covers_service::accounts::{execute, AdminCommand};
    let data_dir = root.join("covers");
    std::fs::create_dir_all(&data_dir).expect("data folder");
    let config_path = root.join("covers.toml");
    std::fs::write(&config_path, UNLIMITED_COVERS).expect("configuration");
    let config = covers_service::config::Config::load(Some(&config_path)).expect("configuration");
    let store =
        covers_service::store::Store::open(&data_dir.join(covers_service::store::DATABASE_FILE)).expect("database");
    let base = "http://127.0.0.1:9";
    let command = |json: Value| -> AdminCommand { serde_json::from_value(json).expect("command") };
    let account = execute(&store, command(serde_json::json!({ "op": "account.create", "plan": "patron" })), base)
        .expect("account");
    let key = execute(&store, command(serde_json::json!({ "op": "key.create", "account": account["id"] })), base)
        .expect("key");
    let observer = Arc::new(service_kit::observe::Observer::new(base));
    let state = Arc::new(covers_service::api::AppState::new(observer, store, &config, &data_dir));
    (covers_service::api::router(state), key["key"].as_str().expect("secret").to_owned())
}

impl Services {
    /// Sends one request; (status, body as JSON or `null`). Panics on a 5xx or on a 4xx that is
    /// not a problem document.
    fn send(&self, service: Service, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
        let (router, key) = match service {
            Service::Crossword => (&self.crossword, &self.crossword_key),
            Service::Covers => (&self.covers, &self.covers_key),
        };
        let (path, body) = if path.ends_with('?') {
            // A query string instead of a body (the bytes percent-encoded as they come).
            let query: String = body.iter().map(|b| format!("%{b:02X}")).collect();
            (format!("{path}pattern={query}&q={query}&language=en"), Vec::new())
        } else {
            (path.replace("{puzzle}", &self.puzzle).replace("{design}", &self.design), body.to_vec())
        };
        let mut request = Request::builder()
            .method(Method::from_bytes(method.as_bytes()).expect("method"))
            .uri(&path)
            .header("authorization", format!("Bearer {key}"))
            .header("content-type", "application/json")
            .body(Body::from(body))
            .expect("request");
        let peer: SocketAddr = "127.0.0.1:40000".parse().expect("address");
        request.extensions_mut().insert(ConnectInfo(peer));
        let (status, content_type, bytes) = self.runtime.block_on(async {
            let response = router.clone().call(request).await.expect("infallible");
            let status = response.status().as_u16();
            let content_type =
                response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
            let bytes = response.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
            (status, content_type, bytes)
        });
        let text = String::from_utf8_lossy(&bytes);
        let json: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        // The one designed 5xx: a language whose index this installation does not have.
        let unavailable = status == 503 && json["code"] == "LANGUAGE_UNAVAILABLE";
        assert!(status < 500 || unavailable, "{method} {path}: {status} {text}");
        if status >= 400 {
            // OAuth endpoints answer their RFCs' error objects; everything else a problem document.
            let oauth = path.starts_with("/oauth/") && content_type == "application/json" && json["error"].is_string();
            let problem = content_type == "application/problem+json" && json["code"].is_string();
            assert!(oauth || problem, "{method} {path}: {status} {content_type} {text}");
        }
        (status, json)
    }
}

/// One request to one operation (the first byte picks it); the rest is its body.
pub fn request_bodies(data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else { return };
    let (service, method, path) = OPERATIONS[usize::from(selector) % OPERATIONS.len()];
    services().send(service, method, path, body);
}
