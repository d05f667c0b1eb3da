//! The public pages: a published puzzle's page (`/p/{id}`) with the solving player, its embed
//! frame (`/embed/{id}`), the grid preview (`/p/{id}/preview.svg`), oEmbed (`/oembed`), author
//! pages (`/u/{slug}`), the showcase gallery (`/showcase`) and the assets they load
//! (`/assets/...`, embedded in the binary).
//!
//! Pages are server-rendered ([`render`]); the player script enhances them. Every page carries a
//! strict Content-Security-Policy (scripts and styles only from this origin; the puzzle data is
//! inert JSON), `X-Content-Type-Options`, `Referrer-Policy` and an `ETag` (a repeat with
//! `If-None-Match` gets 304). The embed may be framed by any site; the other pages by none.

pub mod render;

use std::sync::{Arc, OnceLock};

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use crossword_puzzle::{Puzzle, Status};
use serde_json::json;

use crate::api::extract::{query_pairs, query_param};
use crate::api::AppState;
use crate::store::Listing;
use render::{esc, Site};

/// The assets: name, content type, bytes.
const ASSETS: [(&str, &str, &str); 4] = [
    ("player.js", "text/javascript; charset=utf-8", include_str!("../../assets/player.js")),
    ("player.css", "text/css; charset=utf-8", include_str!("../../assets/player.css")),
    ("embed.js", "text/javascript; charset=utf-8", include_str!("../../assets/embed.js")),
    ("logo.svg", "image/svg+xml", include_str!("../../assets/logo.svg")),
];

/// Puzzles per list page.
pub const PER_PAGE: usize = 24;

/// A 64-bit FNV-1a hash, for ETags and the assets' version.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The assets' version (changes when any asset does), for cache-busting links.
pub fn asset_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let all: String = ASSETS.iter().map(|(_, _, body)| *body).collect();
        format!("{:012x}", fnv(all.as_bytes()) & 0xffff_ffff_ffff)
    })
}

fn site(state: &AppState) -> Site<'_> {
    Site { name: &state.config.limits.service_name, base: state.base_url(), assets: asset_version() }
}

/// True when the client takes gzip (`Accept-Encoding`).
fn takes_gzip(request: &HeaderMap) -> bool {
    request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| e.trim().split(';').next() == Some("gzip") && !e.contains("q=0"))
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

/// The body, gzip-compressed when the client takes it (with `Content-Encoding` and `Vary`).
fn encoded(status: StatusCode, body: Vec<u8>, request: &HeaderMap) -> Response {
    if body.len() > 512 && takes_gzip(request) {
        let mut response = (status, gzip(&body)).into_response();
        response.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        response
    } else {
        let mut response = (status, body).into_response();
        response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        response
    }
}

/// Whether a page may be framed by other sites.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Framing {
    Nobody,
    Anyone,
}

/// An HTML response with the security headers and an ETag (304 when it matches).
fn html(status: StatusCode, body: String, framing: Framing, no_index: bool, request: &HeaderMap) -> Response {
    let etag = format!("\"{:016x}\"", fnv(body.as_bytes()));
    let not_modified = status == StatusCode::OK
        && request
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        encoded(status, body.into_bytes(), request)
    };
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    let ancestors = if framing == Framing::Anyone { "*" } else { "'none'" };
    let csp = format!("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors {ancestors}");
    if let Ok(v) = HeaderValue::from_str(&csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin"));
    if framing == Framing::Nobody {
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    if no_index {
        h.insert("x-robots-tag", HeaderValue::from_static("noindex"));
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    response
}

/// The page's puzzle: published (or an answer for drafts, deleted and unknown ids).
fn published(state: &AppState, id: &str) -> Result<Puzzle, (StatusCode, &'static str, &'static str)> {
    let well_formed = id.len() == 8 && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let found = if well_formed { state.store.puzzle(id) } else { Ok(None) };
    match found {
        Ok(Some(p)) if p.status == Status::Published => Ok(p),
        Ok(_) if well_formed && state.store.puzzle_deleted(id).unwrap_or(false) => {
            Err((StatusCode::GONE, "Puzzle deleted", "Its constructor deleted this puzzle."))
        }
        Ok(_) => Err((StatusCode::NOT_FOUND, "No such puzzle", "There is no published puzzle at this address.")),
        Err(e) => {
            tracing::error!(error = %e, "storage failure");
            Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "The puzzle cannot be read right now; please try again in a moment.",
            ))
        }
    }
}

fn missing(
    state: &AppState,
    framing: Framing,
    headers: &HeaderMap,
    (status, title, text): (StatusCode, &str, &str),
) -> Response {
    html(status, render::message_page(&site(state), title, &esc(text), true), framing, true, headers)
}

/// GET /p/{id}: the puzzle page.
pub async fn puzzle_page(State(state): State<Arc<AppState>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let p = match published(&state, &id) {
        Ok(p) => p,
        Err(e) => return missing(&state, Framing::Nobody, &headers, e),
    };
    match render::puzzle_page(&site(&state), &p, None) {
        Some(page) => html(StatusCode::OK, page, Framing::Nobody, p.no_index, &headers),
        None => missing(
            &state,
            Framing::Nobody,
            &headers,
            (StatusCode::NOT_FOUND, "No such puzzle", "This puzzle cannot be shown."),
        ),
    }
}

/// GET /embed/{id}?scheme=auto|light|dark: the compact frame; puzzles with adult themes refuse
/// to load there.
pub async fn embed_page(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let params = query_pairs(query.as_deref().unwrap_or(""));
    let scheme = match query_param(&params, "scheme") {
        Some(s @ ("light" | "dark" | "auto")) => s.to_owned(),
        _ => "auto".to_owned(),
    };
    let p = match published(&state, &id) {
        Ok(p) => p,
        Err(e) => return missing(&state, Framing::Anyone, &headers, e),
    };
    let site = site(&state);
    if p.adult_themes {
        let text = format!(
            "This puzzle has adult themes, so it is not shown in embedded frames. <a href=\"{}/p/{}\" target=\"_blank\" rel=\"noopener\">Open it on {}</a>.",
            esc(site.base),
            p.id,
            esc(site.name)
        );
        return html(
            StatusCode::FORBIDDEN,
            render::message_page(&site, "Not available here", &text, true),
            Framing::Anyone,
            true,
            &headers,
        );
    }
    match render::puzzle_page(&site, &p, Some(&scheme)) {
        Some(page) => html(StatusCode::OK, page, Framing::Anyone, p.no_index, &headers),
        None => missing(
            &state,
            Framing::Anyone,
            &headers,
            (StatusCode::NOT_FOUND, "No such puzzle", "This puzzle cannot be shown."),
        ),
    }
}

/// GET /p/{id}/preview.svg: the blank numbered grid, for link previews and cards.
pub async fn preview(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    let Ok(p) = published(&state, &id) else { return StatusCode::NOT_FOUND.into_response() };
    let Some(sheet) = p.sheet() else { return StatusCode::NOT_FOUND.into_response() };
    let svg = crossword_puzzle::svg::write(&sheet, false);
    let mut response = svg.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    response
}

/// GET /assets/{name}: the embedded scripts, styles and logo (immutable when versioned).
pub async fn asset(Path(name): Path<String>, RawQuery(query): RawQuery, headers: HeaderMap) -> Response {
    let Some((_, content_type, body)) = ASSETS.iter().find(|(n, _, _)| *n == name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let etag = format!("\"{}\"", asset_version());
    if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        return StatusCode::NOT_MODIFIED.into_response();
    }
    let mut response = encoded(StatusCode::OK, body.as_bytes().to_vec(), &headers);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    let versioned = query.is_some_and(|q| q.starts_with("v="));
    let cache = if versioned { "public, max-age=31536000, immutable" } else { "public, max-age=3600" };
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    response
}

/// GET /oembed?url=...: the oEmbed (JSON) description of a puzzle page for other sites.
pub async fn oembed(State(state): State<Arc<AppState>>, RawQuery(query): RawQuery) -> Response {
    let params = query_pairs(query.as_deref().unwrap_or(""));
    if query_param(&params, "format").is_some_and(|f| f != "json") {
        return (StatusCode::NOT_IMPLEMENTED, "only format=json is offered").into_response();
    }
    let site = site(&state);
    let prefix = format!("{}/p/", site.base);
    let id = query_param(&params, "url")
        .and_then(|u| u.strip_prefix(&prefix))
        .map(|rest| rest.trim_end_matches('/').to_owned());
    let Some(Ok(p)) = id.map(|id| published(&state, &id)) else { return StatusCode::NOT_FOUND.into_response() };
    if p.adult_themes {
        return StatusCode::NOT_FOUND.into_response();
    }
    let width = query_param(&params, "maxwidth").and_then(|w| w.parse::<u32>().ok()).unwrap_or(640).clamp(240, 640);
    let height = (width as usize * 9 / 8 + 160)
        .min(query_param(&params, "maxheight").and_then(|h| h.parse().ok()).unwrap_or(usize::MAX));
    let mut body = json!({
        "version": "1.0",
        "type": "rich",
        "provider_name": site.name,
        "provider_url": format!("{}/", site.base),
        "title": p.title,
        "html": render::embed_snippet(&site, &p).replace("height=\"720\"", &format!("height=\"{height}\"")),
        "width": width,
        "height": height,
        "thumbnail_url": format!("{}/p/{}/preview.svg", site.base, p.id),
    });
    if !p.author.is_empty() {
        body["author_name"] = p.author.clone().into();
    }
    let mut response = axum::Json(body).into_response();
    response.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

fn page_number(params: &[(String, String)]) -> usize {
    query_param(params, "page").and_then(|p| p.parse::<usize>().ok()).filter(|p| (1..=100_000).contains(p)).unwrap_or(1)
}

/// GET /u/{slug}: an author's published puzzles (those with `showProfile`).
pub async fn author_page(
    State(state): State<Arc<AppState>>,
    Path(slug): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let params = query_pairs(query.as_deref().unwrap_or(""));
    let page = page_number(&params);
    let site = site(&state);
    let (puzzles, total) = match state.store.public_puzzles(Listing::Author(&slug), PER_PAGE, (page - 1) * PER_PAGE) {
        Ok(found) => found,
        Err(_) => {
            return missing(
                &state,
                Framing::Nobody,
                &headers,
                (StatusCode::SERVICE_UNAVAILABLE, "Try again", "Please try again in a moment."),
            )
        }
    };
    if total == 0 {
        return missing(
            &state,
            Framing::Nobody,
            &headers,
            (StatusCode::NOT_FOUND, "No such author", "No puzzles are listed for this author."),
        );
    }
    let name = puzzles.first().map(|p| p.author.clone()).unwrap_or_else(|| slug.clone());
    let url = format!("{}/u/{}", site.base, render::percent(&slug));
    let intro = format!("<p>{total} puzzle{} by {}.</p>", if total == 1 { "" } else { "s" }, esc(&name));
    let link = |n: usize| format!("{url}?page={n}");
    let body =
        render::list_page(&site, &format!("Puzzles by {name}"), &intro, &url, &puzzles, total, page, PER_PAGE, link);
    html(StatusCode::OK, body, Framing::Nobody, false, &headers)
}

/// GET /showcase?lang=xx: approved puzzles, newest first.
pub async fn showcase(State(state): State<Arc<AppState>>, RawQuery(query): RawQuery, headers: HeaderMap) -> Response {
    let params = query_pairs(query.as_deref().unwrap_or(""));
    let page = page_number(&params);
    let language = query_param(&params, "lang").and_then(crossword_lang::Language::from_code).map(|l| l.code());
    let site = site(&state);
    let (puzzles, total) =
        match state.store.public_puzzles(Listing::Showcase(language), PER_PAGE, (page - 1) * PER_PAGE) {
            Ok(found) => found,
            Err(_) => {
                return missing(
                    &state,
                    Framing::Nobody,
                    &headers,
                    (StatusCode::SERVICE_UNAVAILABLE, "Try again", "Please try again in a moment."),
                )
            }
        };
    let mut filter = String::from("<form class=\"filters\" method=\"get\" action=\"/showcase\"><label for=\"lang\">Language</label><select id=\"lang\" name=\"lang\"><option value=\"\">All</option>");
    for l in crossword_lang::Language::all() {
        let selected = if Some(l.code()) == language { " selected" } else { "" };
        filter.push_str(&format!("<option value=\"{}\"{selected}>{}</option>", l.code(), esc(l.spec().native_name)));
    }
    filter.push_str("</select><button type=\"submit\">Show</button></form>");
    let url = format!("{}/showcase", site.base);
    let lang_param = language.map(|l| format!("lang={l}&")).unwrap_or_default();
    let link = |n: usize| format!("{url}?{lang_param}page={n}");
    let body = render::list_page(&site, "Showcase", &filter, &url, &puzzles, total, page, PER_PAGE, link);
    html(StatusCode::OK, body, Framing::Nobody, false, &headers)
}
