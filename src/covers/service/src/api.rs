//! The routes of the cover service and its error codes.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use covers_engine::{catalogue, find_with, flap_choices, panel_choices, EXPORT_DPI};
use serde_json::json;
use service_kit::observe::{observe, Observer};
use service_kit::problem::{error_page, CodeInfo, Problem, ProblemCode};

/// The cover service's error codes: the contract's, plus the two every API needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// No such route or resource.
    NotFound,
    /// A field or parameter is invalid (`field` names it).
    ValidationError,
    /// A catalogue decal id in an intent does not exist (never a blank).
    UnknownDecal,
    /// Storage is unavailable; nothing was written.
    Unavailable,
    /// A keyed route without `Authorization: Bearer <key>`.
    ApiKeyRequired,
    /// The key is malformed, unknown or revoked.
    ApiKeyInvalid,
    /// The key lacks the route's scope.
    ForbiddenScope,
    /// A daily quota of the account is used up.
    QuotaReached,
    /// The account's plan does not include this (PNG and PDF exports on the free plan).
    TierRequired,
    /// The uploads library is full.
    LibraryImageLimit,
    /// The request body is larger than 4.5 MB.
    PayloadTooLarge,
    /// A download link was altered.
    LinkInvalid,
    /// A download link is past its hour, or its file past its day.
    LinkExpired,
    /// A designer action on an account without a browser session.
    SignInRequired,
    /// A signed-in browser request without the session's CSRF token.
    CsrfInvalid,
}

impl ProblemCode for Code {
    const ERRORS_PATH: &'static str = "/api/v1/errors";
    const VALIDATION: Code = Code::ValidationError;

    fn all() -> &'static [Code] {
        &[
            Code::NotFound,
            Code::ValidationError,
            Code::UnknownDecal,
            Code::Unavailable,
            Code::ApiKeyRequired,
            Code::ApiKeyInvalid,
            Code::ForbiddenScope,
            Code::QuotaReached,
            Code::TierRequired,
            Code::LibraryImageLimit,
            Code::PayloadTooLarge,
            Code::LinkInvalid,
            Code::LinkExpired,
            Code::SignInRequired,
            Code::CsrfInvalid,
        ]
    }

    fn info(self) -> CodeInfo {
        match self {
            Code::NotFound => CodeInfo {
                name: "NOT_FOUND",
                status: 404,
                statuses: "",
                title: "Not found",
                meaning: "No such route, format or resource.",
                retry: "No.",
                extras: &[],
            },
            Code::ValidationError => CodeInfo {
                name: "VALIDATION_ERROR",
                status: 400,
                statuses: "",
                title: "Validation error",
                meaning: "A parameter or field is invalid; `field` names it.",
                retry: "No.",
                extras: &["field"],
            },
            Code::UnknownDecal => CodeInfo {
                name: "UNKNOWN_DECAL",
                status: 422,
                statuses: "",
                title: "Unknown decal",
                meaning: "An intent places a catalogue decal id that does not exist; `field` names the placement.",
                retry: "No.",
                extras: &["field"],
            },
            Code::Unavailable => CodeInfo {
                name: "UNAVAILABLE",
                status: 503,
                statuses: "",
                title: "Unavailable",
                meaning: "Storage is unavailable; nothing was written.",
                retry: "Yes, with backoff.",
                extras: &[],
            },
            Code::ApiKeyRequired => CodeInfo {
                name: "API_KEY_REQUIRED",
                status: 401,
                statuses: "",
                title: "API key required",
                meaning: "A keyed route was called without `Authorization: Bearer <key>` (the answer carries `WWW-Authenticate: Bearer`).",
                retry: "With a key.",
                extras: &[],
            },
            Code::ApiKeyInvalid => CodeInfo {
                name: "API_KEY_INVALID",
                status: 401,
                statuses: "",
                title: "API key invalid",
                meaning: "The key is malformed, unknown or revoked.",
                retry: "With another key.",
                extras: &[],
            },
            Code::ForbiddenScope => CodeInfo {
                name: "FORBIDDEN_SCOPE",
                status: 403,
                statuses: "",
                title: "Scope missing",
                meaning: "The key lacks the route's scope; `requiredScope` names it.",
                retry: "With a key that has the scope.",
                extras: &["requiredScope"],
            },
            Code::QuotaReached => CodeInfo {
                name: "QUOTA_REACHED",
                status: 429,
                statuses: "",
                title: "Daily quota reached",
                meaning: "A daily quota of the account (composes, uploads or exports) is used up; `Retry-After` gives the seconds to the next midnight UTC, when quotas reset; `quota` names it.",
                retry: "After `Retry-After`.",
                extras: &["quota"],
            },
            Code::TierRequired => CodeInfo {
                name: "TIER_REQUIRED",
                status: 402,
                statuses: "",
                title: "Plan required",
                meaning: "The account's plan does not include this output (a free account asking for `png` or `pdf`). 402 rather than 403: the key is allowed, the account would need a paid plan.",
                retry: "After changing plan.",
                extras: &["output"],
            },
            Code::LibraryImageLimit => CodeInfo {
                name: "LIBRARY_IMAGE_LIMIT",
                status: 409,
                statuses: "",
                title: "Uploads library full",
                meaning: "The plan's uploads library is full; deleting an upload frees a slot.",
                retry: "After deleting an upload.",
                extras: &["limit"],
            },
            Code::PayloadTooLarge => CodeInfo {
                name: "PAYLOAD_TOO_LARGE",
                status: 413,
                statuses: "",
                title: "Body too large",
                meaning: "The request body is larger than 4.5 MB; it was not read further.",
                retry: "No.",
                extras: &[],
            },
            Code::LinkInvalid => CodeInfo {
                name: "LINK_INVALID",
                status: 403,
                statuses: "",
                title: "Download link invalid",
                meaning: "The download link's signature does not match (it was altered).",
                retry: "With the link GET /api/v1/exports/{jobId} gives.",
                extras: &[],
            },
            Code::LinkExpired => CodeInfo {
                name: "LINK_EXPIRED",
                status: 410,
                statuses: "",
                title: "Download link expired",
                meaning: "The link is older than an hour (ask GET /api/v1/exports/{jobId} for a fresh one) or the file is older than a day (export again).",
                retry: "With a fresh link, or a new export.",
                extras: &[],
            },
            Code::SignInRequired => CodeInfo {
                name: "SIGN_IN_REQUIRED",
                status: 401,
                statuses: "",
                title: "Sign-in required",
                meaning: "The designer's account actions (save, export, edit a saved design) need a browser session; sign in at /signin. API callers use the keyed routes instead.",
                retry: "After signing in.",
                extras: &[],
            },
            Code::CsrfInvalid => CodeInfo {
                name: "CSRF_INVALID",
                status: 403,
                statuses: "",
                title: "Security token missing or wrong",
                meaning: "A signed-in browser request lacked the session's token (`X-CSRF-Token`); nothing was changed.",
                retry: "From the page, after reloading it.",
                extras: &[],
            },
        }
    }
}

/// A failure of the cover service.
pub type ApiError = Problem<Code>;

/// What the handlers share.
pub struct AppState {
    /// Public base URL and request metrics, for the middleware.
    pub observer: Arc<Observer>,
    /// Composed designs.
    pub store: crate::store::Store,
    /// Content providers, in the order they are tried.
    pub providers: Vec<Box<dyn covers_engine::content::ContentProvider>>,
    /// How long a composed design is kept without an account, seconds.
    pub design_lifetime_seconds: u64,
    /// The configuration (plan numbers).
    pub config: crate::config::Config,
    /// The loopback admin endpoint's gate.
    pub admin: service_kit::admin::AdminGate,
    /// Uploaded images and previews (content-addressed).
    pub files: crate::files::Files,
    /// Export jobs waiting for a worker.
    pub exports: crate::exports::Queue,
    /// The secret that signs download links.
    pub link_secret: String,
}

impl AppState {
    /// The state of a service with this configuration and data directory.
    pub fn new(
        observer: Arc<Observer>,
        store: crate::store::Store,
        config: &crate::config::Config,
        data_dir: &std::path::Path,
    ) -> AppState {
        AppState {
            observer,
            store,
            providers: providers(config, data_dir),
            design_lifetime_seconds: u64::from(config.designs.lifetime_days) * 86_400,
            config: config.clone(),
            files: crate::files::Files::new(data_dir.join("files")),
            exports: crate::exports::Queue::default(),
            link_secret: crate::exports::link_secret(data_dir),
            admin: service_kit::admin::AdminGate::new(service_kit::admin::ensure_secret(data_dir).unwrap_or_default()),
        }
    }
}

/// Every route.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/api/v1/formats", get(formats))
        .route("/api/v1/formats/{slug}", get(format))
        .route("/api/v1/decals", get(decals))
        .route("/api/v1/decals/{category}/{file}", get(decal_svg))
        .route("/api/v1/content/search", get(content_search))
        .route("/api/v1/content/art/{kind}/{file}", get(content_art))
        .route("/api/v1/content/{type}/{id}", get(content_get))
        .route("/api/v1/content/{type}/{id}/artwork/{kind}", get(content_artwork))
        .route("/api/compose", get(crate::designs::compose_link).post(crate::designs::compose_post))
        .route("/design/{id}", get(crate::designs::designer).put(crate::designs::edit))
        .route("/design/assets/{name}", get(crate::designer::asset))
        .route("/design/{id}/preview.svg", get(crate::designs::preview))
        .route("/design/{id}/preview.png", get(crate::designs::preview_png))
        .route("/design/{id}/save", axum::routing::post(crate::designs::save_composed))
        .route("/design/{id}/export", axum::routing::post(crate::designs::export_saved))
        .route("/design/exports/{id}", get(crate::designs::export_status))
        .route("/api/v1/errors", get(errors))
        .route("/api/v1/openapi.json", get(openapi))
        .route("/signin", get(crate::signin::signin_form).post(crate::signin::signin))
        .route("/signin/link", get(crate::signin::signin_link))
        .route("/signout", axum::routing::post(crate::signin::signout))
        .route("/account", get(crate::signin::account_page))
        .route("/account/keys", axum::routing::post(crate::signin::create_key))
        .route("/account/keys/{id}/revoke", axum::routing::post(crate::signin::revoke_key))
        .merge(crate::keyed::routes())
        .merge(crate::oauth::routes())
        .merge(crate::mcp::routes(state.clone()))
        .route(service_kit::admin::ADMIN_PATH, axum::routing::post(crate::keyed::admin))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(state.observer.clone(), observe))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::new(Code::NotFound, "no such route")
}

/// GET /api/v1/formats: every format with its printed size (the document is built once: the
/// catalogue never changes while the service runs).
async fn formats() -> Response {
    static DOCUMENT: std::sync::OnceLock<axum::body::Bytes> = std::sync::OnceLock::new();
    let body = DOCUMENT.get_or_init(|| axum::body::Bytes::from(formats_document().to_string())).clone();
    ([(axum::http::header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The format catalogue (`GET /api/v1/formats`, the `list_formats` tool).
pub fn formats_document() -> serde_json::Value {
    let items: Vec<serde_json::Value> = catalogue()
        .iter()
        .map(|f| {
            let mut s = f.summary();
            if let Some(range) = panel_choices(f.slug) {
                s["panelChoices"] = json!([range.start(), range.end()]);
            }
            if let Some(flaps) = flap_choices(f.slug) {
                s["flapChoices"] = json!(flaps);
            }
            s
        })
        .collect();
    json!({ "items": items, "dpi": EXPORT_DPI })
}

/// GET /api/v1/formats/{slug}?panels=N&flap=F: panel geometry in pixels at the export DPI.
async fn format(Path(slug): Path<String>, RawQuery(query): RawQuery) -> Response {
    let params: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    match format_document(&slug, get("panels"), get("flap")) {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// One format's panels as pixel sizes at the export DPI, with its coordinate and size units
/// (`GET /api/v1/formats/{slug}`, the `describe_format` tool); `panels` and `flap` choose a
/// J-card's layout.
pub fn format_document(slug: &str, panels: Option<&str>, flap: Option<&str>) -> Result<serde_json::Value, ApiError> {
    let panels = match panels {
        None => None,
        Some(v) => match v.parse::<u8>() {
            Ok(n) => Some(n),
            Err(_) => return Err(ApiError::validation("panels", "`panels` must be a small whole number")),
        },
    };
    if covers_engine::find(slug).is_none() {
        return Err(ApiError::new(Code::NotFound, format!("no format {slug:?}; GET /api/v1/formats lists them")));
    }
    match find_with(slug, panels, flap) {
        Ok(f) => Ok(f.geometry(EXPORT_DPI)),
        Err(why) => Err(ApiError::validation(if why.contains("flap") { "flap" } else { "panels" }, why)),
    }
}

/// GET /api/v1/decals: the decal catalogue, with a preview address for each.
async fn decals(State(state): State<Arc<AppState>>) -> Json<serde_json::Value> {
    Json(decals_document(&state.observer.base_url))
}

/// The decal catalogue with preview addresses (`GET /api/v1/decals`, the `list_decals` tool).
pub fn decals_document(base: &str) -> serde_json::Value {
    let items: Vec<serde_json::Value> = covers_engine::decals::catalogue()
        .iter()
        .map(|d| {
            let mut v = serde_json::to_value(d).unwrap_or_default();
            v["previewUrl"] = format!("{base}/api/v1/decals/{}.svg", d.id).into();
            v
        })
        .collect();
    let categories: Vec<serde_json::Value> =
        covers_engine::decals::CATEGORIES.iter().map(|(id, name)| json!({ "id": id, "name": name })).collect();
    json!({ "items": items, "categories": categories })
}

/// GET /api/v1/decals/{category}/{name}.svg: one decal's artwork.
async fn decal_svg(Path((category, file)): Path<(String, String)>) -> Response {
    let Some(name) = file.strip_suffix(".svg") else {
        return ApiError::new(Code::NotFound, "decal previews end in .svg").into_response();
    };
    match covers_engine::decals::find(&format!("{category}/{name}")) {
        Some(d) => {
            let mut response = d.svg.into_response();
            let h = response.headers_mut();
            h.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("image/svg+xml"));
            h.insert(axum::http::header::CACHE_CONTROL, axum::http::HeaderValue::from_static("public, max-age=86400"));
            h.insert(axum::http::header::X_CONTENT_TYPE_OPTIONS, axum::http::HeaderValue::from_static("nosniff"));
            response
        }
        None => ApiError::new(Code::NotFound, format!("no decal {category}/{name}")).into_response(),
    }
}

fn content_type(name: &str) -> Option<covers_engine::intent::ContentType> {
    use covers_engine::intent::ContentType;
    match name {
        "movie" => Some(ContentType::Movie),
        "tv" => Some(ContentType::Tv),
        "album" => Some(ContentType::Album),
        _ => None,
    }
}

/// The configured providers, in the configured order (online ones only when configured).
pub fn providers(
    config: &crate::config::Config,
    data_dir: &std::path::Path,
) -> Vec<Box<dyn covers_engine::content::ContentProvider>> {
    use covers_engine::content::{Builtin, ContentProvider, Local};
    let c = &config.content;
    let ttl = std::time::Duration::from_secs(c.cache_ttl_hours * 3600);
    let cache = data_dir.join("cache");
    let mut out: Vec<Box<dyn ContentProvider>> = Vec::new();
    for name in &c.order {
        match name.as_str() {
            "builtin" => out.push(Box::new(Builtin)),
            "local" => out.push(Box::new(Local::new(data_dir.join(&c.local_dir)))),
            "tmdb" => {
                if let Some(t) = &c.tmdb {
                    let contact = c.musicbrainz.as_ref().map_or("self-hosted", |m| m.contact.as_str());
                    out.push(Box::new(crate::online::Tmdb::new(t.clone(), cache.join("tmdb"), ttl, contact)));
                }
            }
            "musicbrainz" => {
                if let Some(m) = &c.musicbrainz {
                    out.push(Box::new(crate::online::MusicBrainz::new(m.clone(), cache.join("musicbrainz"), ttl)));
                }
            }
            _ => {}
        }
    }
    out
}

/// A title with its artwork's preview addresses.
fn title_json(base: &str, title: &covers_engine::content::Title) -> serde_json::Value {
    let mut v = serde_json::to_value(title).unwrap_or_default();
    if let Some(art) = v["artwork"].as_array_mut() {
        for a in art {
            let Some(id) = a["id"].as_str().map(str::to_owned) else { continue };
            if let Some(builtin) = id.strip_prefix("builtin:") {
                a["previewUrl"] = format!("{base}/api/v1/content/art/{builtin}.svg").into();
            } else if let (Some((ns, rest)), Some(kind)) = (title.id.split_once(':'), a["kind"].as_str()) {
                // Other providers' images: through the title they belong to (`tmdb:movie/19`).
                let (type_name, key) = rest.split_once('/').unwrap_or(("movie", rest));
                a["previewUrl"] = format!("{base}/api/v1/content/{type_name}/{ns}:{key}/artwork/{kind}").into();
            }
        }
    }
    v
}

/// GET /api/v1/content/search?type=movie|tv|album&q=TITLE: matches, best first (an empty list
/// when nothing matches).
async fn content_search(State(state): State<Arc<AppState>>, RawQuery(query): RawQuery) -> Response {
    let params: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let get = |k: &str| params.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let (kind, q) = (get("type"), get("q"));
    let done = tokio::task::spawn_blocking(move || search_content(&state, kind.as_deref(), q.as_deref())).await;
    match done.unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "the search failed"))) {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// Titles matching `q` from every provider, best first (`GET /api/v1/content/search`, the
/// `search_content` tool); `kind` is movie (default), tv or album. Blocking (providers may ask
/// the network).
pub fn search_content(state: &AppState, kind: Option<&str>, q: Option<&str>) -> Result<serde_json::Value, ApiError> {
    let Some(kind) = content_type(kind.unwrap_or("movie")) else {
        return Err(ApiError::validation("type", "`type` is movie, tv or album"));
    };
    let q = q.unwrap_or("").trim();
    if q.is_empty() || q.chars().count() > 200 {
        return Err(ApiError::validation("q", "`q` is the title to search, 1 to 200 characters"));
    }
    let mut items = Vec::new();
    for p in &state.providers {
        match p.search(kind, q) {
            Ok(found) => items.extend(found.iter().map(|t| title_json(&state.observer.base_url, t))),
            Err(e) => tracing::warn!(provider = p.namespace(), error = %e.0, "content search failed"),
        }
    }
    Ok(json!({ "items": items }))
}

/// GET /api/v1/content/{type}/{provider:id}: one title with its artwork as decal ids.
async fn content_get(State(state): State<Arc<AppState>>, Path((kind, id)): Path<(String, String)>) -> Response {
    let done = tokio::task::spawn_blocking(move || get_content(&state, &kind, &id)).await;
    match done.unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "the lookup failed"))) {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

/// One title with its posters, logos and stills as decal ids (`GET /api/v1/content/{type}/{id}`,
/// the `get_content` tool); `id` is `provider:key` (`builtin:metropolis-1927`). Blocking.
pub fn get_content(state: &AppState, kind: &str, id: &str) -> Result<serde_json::Value, ApiError> {
    if content_type(kind).is_none() {
        return Err(ApiError::validation("type", "`type` is movie, tv or album"));
    }
    let missing = || ApiError::new(Code::NotFound, format!("no {kind} {id}"));
    let (namespace, local) = id.split_once(':').ok_or_else(missing)?;
    let title = crate::designs::title_by_id(state, &format!("{namespace}:{kind}/{local}")).ok_or_else(missing)?;
    Ok(title_json(&state.observer.base_url, &title))
}

/// GET /api/v1/content/{type}/{provider:id}/artwork/{kind}: a title's image (local catalogue
/// and online providers), as the provider gave it (PNG or JPEG).
async fn content_artwork(
    State(state): State<Arc<AppState>>,
    Path((kind, id, art)): Path<(String, String, String)>,
) -> Response {
    let missing = || ApiError::new(Code::NotFound, format!("no {art} artwork for {kind} {id}")).into_response();
    if content_type(&kind).is_none() {
        return ApiError::validation("type", "`type` is movie, tv or album").into_response();
    }
    let Some((namespace, local)) = id.split_once(':') else { return missing() };
    let full_id = format!("{namespace}:{kind}/{local}");
    let title = tokio::task::spawn_blocking(move || crate::designs::title_by_id(&state, &full_id)).await.ok().flatten();
    let image = title.and_then(|t| t.artwork.into_iter().find(|a| a.kind == art)).and_then(|a| a.image);
    match image {
        Some(image) => {
            let mut response = image.bytes.clone().into_response();
            let h = response.headers_mut();
            h.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static(image.mime));
            h.insert(axum::http::header::X_CONTENT_TYPE_OPTIONS, axum::http::HeaderValue::from_static("nosniff"));
            response
        }
        None => missing(),
    }
}

/// GET /api/v1/content/art/{kind}/{slug}.svg: generated artwork of a built-in title.
async fn content_art(Path((kind, file)): Path<(String, String)>) -> Response {
    let svg = file.strip_suffix(".svg").and_then(|slug| covers_engine::content::artwork_svg(slug, &kind));
    match svg {
        Some(svg) => {
            let mut response = svg.into_response();
            let h = response.headers_mut();
            h.insert(axum::http::header::CONTENT_TYPE, axum::http::HeaderValue::from_static("image/svg+xml"));
            h.insert(axum::http::header::X_CONTENT_TYPE_OPTIONS, axum::http::HeaderValue::from_static("nosniff"));
            response
        }
        None => ApiError::new(Code::NotFound, "no such artwork").into_response(),
    }
}

/// GET /api/v1/openapi.json: the OpenAPI 3.1 document.
async fn openapi(State(state): State<Arc<AppState>>) -> Json<serde_json::Value> {
    Json(crate::openapi::document(&state.observer.base_url))
}

/// GET /api/v1/errors: the error reference page.
async fn errors() -> Html<String> {
    Html(error_page::<Code>(
        "body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}",
        "<h1>Cover service errors</h1>",
    ))
}
