//! The OAuth 2.1 authorization server built into the cover service, for the MCP connector.
//!
//! * Metadata: protected resource (RFC 9728) at `/.well-known/oauth-protected-resource` and its
//!   `/mcp`-suffixed form; authorization server (RFC 8414) at
//!   `/.well-known/oauth-authorization-server`.
//! * Clients: dynamic registration (RFC 7591, `POST /oauth/register`, public clients) or a client
//!   id that is the https address of its metadata document (CIMD), fetched once a day, at most
//!   16 KB, no redirects, never from a private or loopback address unless
//!   `[oauth] allow_http_client_metadata` (tests).
//! * `GET /oauth/authorize`: authorization code with PKCE S256 only; the redirect URI must be
//!   one the client registered, matched exactly (otherwise an error page, never a redirect). The
//!   approval page uses the browser sign-in, names the app and the scopes, and is shown once: a
//!   later request within the approved scopes is answered at once.
//! * `POST /oauth/token`: codes are single-use (a second use revokes what the first issued) and
//!   live `code_seconds`; access tokens (`cvr_at_…`) live `access_token_seconds`; refresh tokens
//!   (`cvr_rt_…`) rotate on every use, and a used one presented again revokes its whole family.
//!   Tokens are bound to the resource `{base}/mcp` and only accepted there. Only hashes are
//!   stored.
//! * `POST /oauth/revoke` (RFC 7009) ends a token's family; the account page disconnects an app
//!   (its approval and every token, at once).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use service_kit::keys::{hash, random_alphanumeric, random_id, same_secret};
use service_kit::period::unix_now;
use sha2::{Digest, Sha256};

use crate::accounts::Scope;
use crate::api::AppState;
use crate::mcp::{resource, Caller};
use crate::oauth_store::{Client, Code, Grant, Redeemed, Rotated, Token};
use crate::signin::{esc, field, form, page, redirect, session};

/// Access token prefix.
pub const ACCESS_PREFIX: &str = "cvr_at_";
/// Refresh token prefix.
pub const REFRESH_PREFIX: &str = "cvr_rt_";

/// The OAuth routes.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/.well-known/oauth-protected-resource", get(protected_resource))
        .route("/.well-known/oauth-protected-resource/mcp", get(protected_resource))
        .route("/.well-known/oauth-authorization-server", get(authorization_server))
        .route("/.well-known/oauth-authorization-server/mcp", get(authorization_server))
        .route("/oauth/register", post(register))
        .route("/oauth/authorize", get(authorize).post(approve))
        .route("/oauth/token", post(token))
        .route("/oauth/revoke", post(revoke))
        .route("/account/apps/{client}/revoke", post(disconnect))
}

/// The caller of a bearer on `/mcp`: an API key (`cvr_live_…`, its scopes) or an access token
/// issued for this resource, alive and not revoked. `None` for anything else.
pub fn bearer(state: &AppState, secret: &str) -> Option<Caller> {
    if secret.starts_with(ACCESS_PREFIX) {
        let t = state.store.token(&hash(secret)).ok()??;
        if t.kind != "access"
            || t.revoked
            || unix_now() > t.expires_at
            || t.resource != resource(&state.observer.base_url)
        {
            return None;
        }
        let account = state.store.account(&t.account_id).ok()??;
        let scopes = t.scopes.iter().filter_map(|s| Scope::named(s)).collect();
        return Some(Caller { account, scopes, client_id: Some(t.client_id) });
    }
    let (account, key) = crate::keyed::key_owner(state, secret).ok()??;
    Some(Caller { account, scopes: key.scopes, client_id: None })
}

fn json_response(status: StatusCode, v: Value) -> Response {
    let mut response = (status, Json(v)).into_response();
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

/// An RFC 6749 error (`{error, error_description}`).
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    json_response(status, json!({ "error": error, "error_description": description }))
}

/// GET /.well-known/oauth-protected-resource[/mcp] (RFC 9728).
async fn protected_resource(State(state): State<Arc<AppState>>) -> Response {
    let base = &state.observer.base_url;
    json_response(
        StatusCode::OK,
        json!({
            "resource": resource(base),
            "authorization_servers": [base],
            "scopes_supported": Scope::ALL.iter().map(|s| s.name()).collect::<Vec<_>>(),
            "bearer_methods_supported": ["header"],
            "resource_name": "Covers",
            "resource_documentation": format!("{base}/api/v1/errors"),
        }),
    )
}

/// GET /.well-known/oauth-authorization-server (RFC 8414).
async fn authorization_server(State(state): State<Arc<AppState>>) -> Response {
    let base = &state.observer.base_url;
    json_response(
        StatusCode::OK,
        json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/oauth/authorize"),
            "token_endpoint": format!("{base}/oauth/token"),
            "registration_endpoint": format!("{base}/oauth/register"),
            "revocation_endpoint": format!("{base}/oauth/revoke"),
            "scopes_supported": Scope::ALL.iter().map(|s| s.name()).collect::<Vec<_>>(),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
            "client_id_metadata_document_supported": true,
            "authorization_response_iss_parameter_supported": true,
        }),
    )
}

/// A redirect URI a client may register: https, or http on a loopback host (native apps,
/// RFC 8252); no fragment, no user info.
fn acceptable_redirect(uri: &str) -> bool {
    let ok_length =
        !uri.is_empty() && uri.len() <= 2000 && !uri.contains('#') && uri.bytes().all(|b| b.is_ascii_graphic());
    let Some((scheme, rest)) = uri.split_once("://") else { return false };
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    if authority.is_empty() || authority.contains('@') || !ok_length {
        return false;
    }
    let host =
        authority
            .rsplit_once(':')
            .map_or(authority, |(h, p)| if p.bytes().all(|b| b.is_ascii_digit()) { h } else { authority });
    match scheme {
        "https" => true,
        "http" => ["127.0.0.1", "localhost", "[::1]"].contains(&host),
        _ => false,
    }
}

/// POST /oauth/register (RFC 7591): a public client (no secret; PKCE protects the code).
async fn register(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let Ok(bytes) = axum::body::to_bytes(body, 16 * 1024).await else {
        return oauth_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_client_metadata",
            "the metadata is larger than 16 KB",
        );
    };
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", "the body is not JSON");
    };
    let uris: Vec<String> = match v.get("redirect_uris").and_then(Value::as_array) {
        Some(list) if !list.is_empty() && list.len() <= 10 => {
            list.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        _ => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_redirect_uri",
                "`redirect_uris` lists 1 to 10 addresses",
            )
        }
    };
    if uris.len() != v["redirect_uris"].as_array().map_or(0, Vec::len) || !uris.iter().all(|u| acceptable_redirect(u)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            "redirect URIs are https, or http on a loopback host, without a fragment",
        );
    }
    match v.get("token_endpoint_auth_method").and_then(Value::as_str) {
        None | Some("none") => {}
        Some(_) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                "only public clients (`none`) are registered",
            )
        }
    }
    for (key, allowed) in
        [("grant_types", &["authorization_code", "refresh_token"][..]), ("response_types", &["code"][..])]
    {
        if let Some(list) = v.get(key).and_then(Value::as_array) {
            if !list.iter().all(|g| g.as_str().is_some_and(|g| allowed.contains(&g))) {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_client_metadata",
                    &format!("`{key}` may hold {}", allowed.join(", ")),
                );
            }
        }
    }
    let name: String =
        v.get("client_name").and_then(Value::as_str).unwrap_or("An app").trim().chars().take(100).collect();
    let client = Client {
        client_id: random_id("cli_"),
        client_name: if name.is_empty() { "An app".into() } else { name },
        redirect_uris: uris,
        kind: "registered".into(),
        created_at: unix_now(),
    };
    if state.store.put_client(&client).is_err() {
        return oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "storage is unavailable");
    }
    json_response(
        StatusCode::CREATED,
        json!({
            "client_id": client.client_id,
            "client_id_issued_at": client.created_at,
            "client_name": client.client_name,
            "redirect_uris": client.redirect_uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        }),
    )
}

/// The client of `client_id`: registered, or its metadata document (fetched, checked and
/// cached for a day). Blocking.
fn find_client(state: &AppState, client_id: &str) -> Option<Client> {
    let known = state.store.client(client_id).ok().flatten();
    let is_document = client_id.starts_with("https://") || client_id.starts_with("http://");
    match known {
        Some(c) if !is_document || unix_now().saturating_sub(c.created_at) < 86_400 => Some(c),
        _ if is_document => {
            let client = fetch_metadata_document(state, client_id)?;
            let _ = state.store.put_client(&client);
            Some(client)
        }
        _ => None,
    }
}

/// Fetches and checks a client metadata document: its `client_id` must be its own address.
fn fetch_metadata_document(state: &AppState, url: &str) -> Option<Client> {
    let allowed_http = state.config.oauth.allow_http_client_metadata;
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://").filter(|_| allowed_http))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let path = &rest[authority.len()..];
    if path.len() < 2 || url.contains('#') || authority.contains('@') {
        return None;
    }
    let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h).trim_matches(['[', ']']);
    if !allowed_http && private_host(host) {
        return None;
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(5)))
        .max_redirects(0)
        .user_agent(format!("covers/{}", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent.get(url).call().ok()?;
    let bytes = response.body_mut().with_config().limit(16 * 1024).read_to_vec().ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    if v["client_id"].as_str() != Some(url) {
        return None;
    }
    let uris: Vec<String> =
        v["redirect_uris"].as_array()?.iter().filter_map(Value::as_str).map(str::to_owned).collect();
    if uris.is_empty() || !uris.iter().all(|u| acceptable_redirect(u)) {
        return None;
    }
    let name: String = v["client_name"].as_str().unwrap_or(authority).trim().chars().take(100).collect();
    Some(Client {
        client_id: url.to_owned(),
        client_name: name,
        redirect_uris: uris,
        kind: "metadata-document".into(),
        created_at: unix_now(),
    })
}

/// Loopback, private, link-local and unspecified addresses, and `localhost`.
fn private_host(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") || host.ends_with(".localhost") || host.ends_with(".internal") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.is_unspecified() || (ip.segments()[0] & 0xfe00) == 0xfc00
        }
        Err(_) => false,
    }
}

/// A checked authorization request.
struct AuthRequest {
    client: Client,
    redirect_uri: String,
    state: Option<String>,
    challenge: String,
    scopes: Vec<String>,
    resource: String,
}

/// Why an authorization request is refused.
enum Refusal {
    /// Shown to the user, never redirected: an unknown client or an unregistered redirect URI.
    Page(&'static str, &'static str),
    /// Sent back to the client's redirect URI (this address, with `error`).
    Back(String),
}

impl Refusal {
    fn respond(self) -> Response {
        match self {
            Refusal::Page(title, text) => page(StatusCode::BAD_REQUEST, title, &format!("<p>{text}</p>"), &[]),
            Refusal::Back(url) => redirect(&url, &[]),
        }
    }
}

/// Checks an authorization request.
fn check_request(state: &AppState, params: &[(String, String)]) -> Result<AuthRequest, Refusal> {
    let client_id = field(params, "client_id");
    let Some(client) = find_client(state, client_id) else {
        return Err(Refusal::Page("Unknown app", "This app is not registered here; nothing was sent back to it."));
    };
    let redirect_uri = field(params, "redirect_uri");
    let redirect_uri = if redirect_uri.is_empty() && client.redirect_uris.len() == 1 {
        client.redirect_uris[0].clone()
    } else {
        redirect_uri.to_owned()
    };
    if !client.redirect_uris.contains(&redirect_uri) {
        return Err(Refusal::Page(
            "Wrong return address",
            "The app asked to return to an address it did not register; nothing was sent there.",
        ));
    }
    let app_state = Some(field(params, "state").to_owned()).filter(|s| !s.is_empty());
    let back = |error: &str, description: &str| -> Result<AuthRequest, Refusal> {
        Err(Refusal::Back(error_redirect(
            &state.observer.base_url,
            &redirect_uri,
            error,
            description,
            app_state.as_deref(),
        )))
    };
    if field(params, "response_type") != "code" {
        return back("unsupported_response_type", "only the authorization code flow is supported");
    }
    let challenge = field(params, "code_challenge");
    if field(params, "code_challenge_method") != "S256"
        || challenge.len() < 43
        || challenge.len() > 128
        || !challenge.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return back("invalid_request", "PKCE with code_challenge_method=S256 is required");
    }
    let requested = field(params, "scope");
    let scopes: Vec<String> = if requested.trim().is_empty() {
        Scope::ALL.iter().map(|s| s.name().to_owned()).collect()
    } else {
        requested.split_whitespace().map(str::to_owned).collect()
    };
    if !scopes.iter().all(|s| Scope::named(s).is_some()) {
        return back("invalid_scope", "scopes are read, design:write and export");
    }
    let expected = resource(&state.observer.base_url);
    let resource = match field(params, "resource") {
        "" => expected,
        r if r.trim_end_matches('/') == expected => expected,
        _ => return back("invalid_target", "this server issues tokens for its /mcp resource only"),
    };
    Ok(AuthRequest { client, redirect_uri, state: app_state, challenge: challenge.to_owned(), scopes, resource })
}

/// The client's redirect URI with `params` added to its query.
fn with_params(uri: &str, params: &[(&str, &str)]) -> String {
    let mut out = uri.to_owned();
    let mut sep = if uri.contains('?') { '&' } else { '?' };
    for (k, v) in params {
        out.push(sep);
        out.push_str(k);
        out.push('=');
        out.extend(form_urlencoded::byte_serialize(v.as_bytes()));
        sep = '&';
    }
    out
}

fn error_redirect(base: &str, uri: &str, error: &str, description: &str, app_state: Option<&str>) -> String {
    let mut params = vec![("error", error), ("error_description", description), ("iss", base)];
    if let Some(s) = app_state {
        params.push(("state", s));
    }
    with_params(uri, &params)
}

/// Issues a code for an approved request and sends the browser back to the app.
fn issue_code(state: &AppState, account_id: &str, req: &AuthRequest) -> Response {
    let code = random_alphanumeric(43);
    let record = Code {
        client_id: req.client.client_id.clone(),
        account_id: account_id.to_owned(),
        redirect_uri: req.redirect_uri.clone(),
        code_challenge: req.challenge.clone(),
        scopes: req.scopes.clone(),
        resource: req.resource.clone(),
        family: random_id("fam_"),
        expires_at: unix_now() + state.config.oauth.code_seconds,
        used: false,
    };
    if state.store.put_code(&hash(&code), &record).is_err() {
        return page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "<p>Storage is unavailable; try again.</p>", &[]);
    }
    let mut params = vec![("code", code.as_str()), ("iss", state.observer.base_url.as_str())];
    if let Some(s) = &req.state {
        params.push(("state", s));
    }
    redirect(&with_params(&req.redirect_uri, &params), &[])
}

fn scope_text(scope: &str) -> &'static str {
    match scope {
        "read" => "see your account, uploads, designs and exports",
        "design:write" => "upload images and save, change and delete designs",
        "export" => "render print files (PNG, PDF) of your designs",
        _ => "",
    }
}

/// Checks the authorization request in `query` on the blocking pool (a client metadata document
/// may be fetched); a refusal is already the answer to send.
async fn checked_request(state: &Arc<AppState>, query: &str) -> Result<AuthRequest, Response> {
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let state = state.clone();
    match tokio::task::spawn_blocking(move || check_request(&state, &params)).await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(refusal)) => Err(refusal.respond()),
        Err(_) => Err(page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "<p>Try again.</p>", &[])),
    }
}

/// GET /oauth/authorize: checks the request; signed out, to sign-in and back; approved before
/// (within the approved scopes), a code at once; otherwise the approval page.
async fn authorize(State(state): State<Arc<AppState>>, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let query = query.unwrap_or_default();
    let req = match checked_request(&state, &query).await {
        Ok(r) => r,
        Err(response) => return response,
    };
    let Some((account, ticket, _)) = session(&state, &headers) else {
        let next: String = form_urlencoded::byte_serialize(format!("/oauth/authorize?{query}").as_bytes()).collect();
        return redirect(&format!("/signin?next={next}"), &[]);
    };
    if let Ok(Some(grant)) = state.store.grant(&account.id, &req.client.client_id) {
        if req.scopes.iter().all(|s| grant.scopes.contains(s)) {
            return issue_code(&state, &account.id, &req);
        }
    }
    let scopes: String =
        req.scopes.iter().map(|s| format!("<li><strong>{}</strong>: {}</li>", esc(s), scope_text(s))).collect();
    let host = req.redirect_uri.split_once("://").map_or("", |(_, r)| r.split(['/', '?']).next().unwrap_or(""));
    let body = format!(
        "<p><strong id=\"app-name\">{name}</strong> (returning to <code>{host}</code>) asks to use your covers account <strong>{who}</strong>. It will be able to:</p><ul id=\"scopes\">{scopes}</ul>\
         <form method=\"post\" action=\"/oauth/authorize\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><input type=\"hidden\" name=\"request\" value=\"{request}\">\
         <button name=\"decision\" value=\"approve\" id=\"approve\">Approve</button> <button name=\"decision\" value=\"deny\" id=\"deny\">Deny</button></form>\
         <p>You approve once; the account page lists connected apps and disconnects them.</p>",
        name = esc(&req.client.client_name),
        host = esc(host),
        who = esc(account.email.as_deref().or(account.name.as_deref()).unwrap_or(&account.id)),
        csrf = esc(&ticket.csrf),
        request = esc(&query),
    );
    let mut response = page(StatusCode::OK, "Connect an app", &body, &[]);
    // The approval form posts here and is answered with a redirect to the app, which
    // `form-action` also governs: allow exactly the app's registered origin.
    let origin = req
        .redirect_uri
        .split_once("://")
        .map(|(scheme, rest)| format!("{scheme}://{}", rest.split(['/', '?']).next().unwrap_or("")));
    let csp = format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' {}; base-uri 'none'; frame-ancestors 'none'",
        origin.unwrap_or_default()
    );
    if let Ok(v) = HeaderValue::from_str(&csp) {
        response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
    }
    response
}

/// POST /oauth/authorize: the approval page's answer (session and CSRF token required).
async fn approve(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let Some((account, ticket, _)) = session(&state, &headers) else { return redirect("/signin", &[]) };
    let Some(fields) = form(body).await else { return crate::signin::forbidden() };
    if !same_secret(&ticket.csrf, field(&fields, "csrf")) {
        return crate::signin::forbidden();
    }
    let req = match checked_request(&state, field(&fields, "request")).await {
        Ok(r) => r,
        Err(response) => return response,
    };
    if field(&fields, "decision") != "approve" {
        let url = error_redirect(
            &state.observer.base_url,
            &req.redirect_uri,
            "access_denied",
            "the user denied access",
            req.state.as_deref(),
        );
        return redirect(&url, &[]);
    }
    let mut scopes =
        state.store.grant(&account.id, &req.client.client_id).ok().flatten().map(|g| g.scopes).unwrap_or_default();
    for s in &req.scopes {
        if !scopes.contains(s) {
            scopes.push(s.clone());
        }
    }
    let grant = Grant {
        account_id: account.id.clone(),
        client_id: req.client.client_id.clone(),
        client_name: req.client.client_name.clone(),
        scopes,
        approved_at: unix_now(),
    };
    if state.store.put_grant(&grant).is_err() {
        return page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "<p>Storage is unavailable; try again.</p>", &[]);
    }
    issue_code(&state, &account.id, &req)
}

/// BASE64URL(SHA-256(verifier)) without padding (RFC 7636 S256).
fn s256(verifier: &str) -> String {
    covers_engine::image::base64(&Sha256::digest(verifier.as_bytes()))
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_")
}

/// A new access and refresh token pair of a family: the secrets and the records.
fn token_pair(
    state: &AppState,
    client: &str,
    account: &str,
    scopes: &[String],
    resource: &str,
    family: &str,
) -> ((String, String), Vec<(String, Token)>) {
    let now = unix_now();
    let access = format!("{ACCESS_PREFIX}{}", random_alphanumeric(43));
    let refresh = format!("{REFRESH_PREFIX}{}", random_alphanumeric(43));
    let record = |kind: &str, expires_at: u64| Token {
        kind: kind.into(),
        client_id: client.into(),
        account_id: account.into(),
        scopes: scopes.to_vec(),
        resource: resource.into(),
        family: family.into(),
        expires_at,
        used: false,
        revoked: false,
    };
    let o = &state.config.oauth;
    let records = vec![
        (hash(&access), record("access", now + o.access_token_seconds)),
        (hash(&refresh), record("refresh", now + o.refresh_token_seconds)),
    ];
    ((access, refresh), records)
}

fn token_answer(state: &AppState, (access, refresh): (String, String), scopes: &[String]) -> Response {
    json_response(
        StatusCode::OK,
        json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": state.config.oauth.access_token_seconds,
            "refresh_token": refresh,
            "scope": scopes.join(" "),
        }),
    )
}

/// POST /oauth/token: `authorization_code` (with the PKCE verifier) or `refresh_token`.
async fn token(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let Some(fields) = form(body).await else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send application/x-www-form-urlencoded");
    };
    let done = tokio::task::spawn_blocking(move || exchange(&state, &fields)).await;
    done.unwrap_or_else(|_| oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "try again"))
}

fn exchange(state: &AppState, fields: &[(String, String)]) -> Response {
    let bad = |error: &str, description: &str| oauth_error(StatusCode::BAD_REQUEST, error, description);
    let client_id = field(fields, "client_id");
    if client_id.is_empty() {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "`client_id` is required (public clients)");
    }
    match field(fields, "grant_type") {
        "authorization_code" => {
            let verifier = field(fields, "code_verifier");
            if verifier.len() < 43 || verifier.len() > 128 {
                return bad("invalid_request", "`code_verifier` (43 to 128 characters) is required");
            }
            let code = match state.store.redeem_code(&hash(field(fields, "code")), unix_now()) {
                Ok(Redeemed::Fresh(c)) => c,
                Ok(Redeemed::Reused) => {
                    return bad("invalid_grant", "the code was used already; what it issued is revoked")
                }
                Ok(Redeemed::Invalid) => return bad("invalid_grant", "unknown or expired code"),
                Err(_) => return oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "storage"),
            };
            if code.client_id != client_id {
                return bad("invalid_grant", "the code was issued to another client");
            }
            if code.redirect_uri != field(fields, "redirect_uri") {
                return bad("invalid_grant", "`redirect_uri` differs from the authorization request's");
            }
            if !same_secret(&s256(verifier), &code.code_challenge) {
                return bad("invalid_grant", "the PKCE verifier does not match the challenge");
            }
            let requested = field(fields, "resource");
            if !requested.is_empty() && requested.trim_end_matches('/') != code.resource {
                return bad("invalid_target", "the code was issued for another resource");
            }
            let (secrets, records) =
                token_pair(state, &code.client_id, &code.account_id, &code.scopes, &code.resource, &code.family);
            if state.store.put_tokens(&records).is_err() {
                return oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "storage");
            }
            token_answer(state, secrets, &code.scopes)
        }
        "refresh_token" => {
            let presented = field(fields, "refresh_token");
            if !presented.starts_with(REFRESH_PREFIX) {
                return bad("invalid_grant", "unknown refresh token");
            }
            let mut issued = None;
            let outcome = state.store.rotate_refresh(&hash(presented), client_id, unix_now(), |old| {
                // The connection must still be approved; narrowing with `scope` is allowed.
                let (secrets, records) =
                    token_pair(state, &old.client_id, &old.account_id, &old.scopes, &old.resource, &old.family);
                issued = Some((secrets, old.scopes.clone()));
                records
            });
            match outcome {
                Ok(Rotated::Fresh(old)) => {
                    if state.store.grant(&old.account_id, &old.client_id).ok().flatten().is_none() {
                        let _ = state.store.disconnect(&old.account_id, &old.client_id);
                        return bad("invalid_grant", "the app was disconnected");
                    }
                    match issued {
                        Some((secrets, scopes)) => token_answer(state, secrets, &scopes),
                        None => oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "try again"),
                    }
                }
                Ok(Rotated::Reused) => {
                    bad("invalid_grant", "the refresh token was used already; its family is revoked")
                }
                Ok(Rotated::Invalid) => bad("invalid_grant", "unknown, expired or revoked refresh token"),
                Err(_) => oauth_error(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable", "storage"),
            }
        }
        "" => bad("invalid_request", "`grant_type` is required"),
        _ => bad("unsupported_grant_type", "authorization_code or refresh_token"),
    }
}

/// POST /oauth/revoke (RFC 7009): revokes the token's family; 200 whatever the token was.
async fn revoke(State(state): State<Arc<AppState>>, body: Body) -> Response {
    let Some(fields) = form(body).await else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "send application/x-www-form-urlencoded");
    };
    let token = field(&fields, "token").to_owned();
    let client = field(&fields, "client_id").to_owned();
    let _ = tokio::task::spawn_blocking(move || state.store.revoke_token(&hash(&token), &client)).await;
    json_response(StatusCode::OK, json!({}))
}

/// POST /account/apps/{client}/revoke: disconnects an app (session and CSRF token required).
async fn disconnect(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(client): Path<String>,
    body: Body,
) -> Response {
    let Some((account, ticket, _)) = session(&state, &headers) else { return redirect("/signin", &[]) };
    let Some(fields) = form(body).await else { return crate::signin::forbidden() };
    if !same_secret(&ticket.csrf, field(&fields, "csrf")) {
        return crate::signin::forbidden();
    }
    let _ = tokio::task::spawn_blocking(move || state.store.disconnect(&account.id, &client)).await;
    redirect("/account", &[])
}

/// The account page's list of connected apps, with a disconnect form each.
pub fn connected_apps(state: &AppState, account: &str, csrf: &str) -> String {
    let grants = state.store.grants_of(account).unwrap_or_default();
    if grants.is_empty() {
        return "<p>No app is connected. AI apps connect at <code>".to_owned()
            + &esc(&resource(&state.observer.base_url))
            + "</code>.</p>";
    }
    let rows: String = grants
        .iter()
        .map(|g| {
            let client: String = form_urlencoded::byte_serialize(g.client_id.as_bytes()).collect();
            format!(
                "<tr><td class=\"app\">{}</td><td>{}</td><td><form method=\"post\" action=\"/account/apps/{client}/revoke\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button>Disconnect</button></form></td></tr>",
                esc(&g.client_name),
                esc(&g.scopes.join(", ")),
                esc(csrf)
            )
        })
        .collect();
    format!("<table id=\"apps\"><tr><th>App</th><th>Scopes</th><th></th></tr>{rows}</table>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_follows_rfc_7636() {
        // RFC 7636, appendix B.
        assert_eq!(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    }

    #[test]
    fn redirect_uris_are_https_or_loopback_http() {
        assert!(acceptable_redirect("https://claude.ai/api/mcp/auth_callback"));
        assert!(acceptable_redirect("http://127.0.0.1:33418/callback"));
        assert!(acceptable_redirect("http://localhost/cb"));
        assert!(!acceptable_redirect("http://example.org/cb"));
        assert!(!acceptable_redirect("https://example.org/cb#x"));
        assert!(!acceptable_redirect("https://user@example.org/cb"));
        assert!(!acceptable_redirect("javascript:alert(1)"));
        assert!(!acceptable_redirect("http://127.0.0.1.evil.org/cb"));
    }

    #[test]
    fn private_hosts_are_refused_for_metadata_documents() {
        for h in ["localhost", "127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1", "fd00::1", "0.0.0.0"] {
            assert!(private_host(h), "{h}");
        }
        assert!(!private_host("claude.ai"));
        assert!(!private_host("93.184.216.34"));
    }
}
