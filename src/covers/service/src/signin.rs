//! Browser sign-in and the account page.
//!
//! * Passwords are argon2id hashes (PHC strings); `covers admin account password ID` sets one.
//!   A one-time link from `covers admin account login-link ID` signs in once, within 15 minutes.
//! * A session is a random token in an `HttpOnly`, `SameSite=Lax` cookie (`Secure` when the
//!   public base URL is https); only its SHA-256 is stored, with its CSRF token and expiry
//!   (`[service] session_lifetime_seconds`, 14 days by default).
//! * Every form that changes something carries a CSRF token: the session's own, or before
//!   sign-in a double-submit token in a `covers_csrf` cookie. A POST without the right token is
//!   refused with 403 and changes nothing.
//! * `GET /account` lists the account's designs, uploads and keys; keys are created (the secret
//!   shown once) and revoked there.

use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use service_kit::keys::{hash, random_alphanumeric};

use crate::accounts::{Account, Scope};
use crate::api::{ApiError, AppState, Code};
use crate::store::Ticket;

/// A one-time sign-in link's lifetime, seconds.
pub const LINK_SECONDS: u64 = 15 * 60;
const SESSION_COOKIE: &str = "covers_session";
const CSRF_COOKIE: &str = "covers_csrf";

/// An argon2id hash of a password of 10 to 200 characters.
pub fn hash_password(password: &str) -> Result<String, String> {
    let n = password.chars().count();
    if !(10..=200).contains(&n) {
        return Err("a password is 10 to 200 characters".into());
    }
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| e.to_string())?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    Argon2::default().hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(|e| e.to_string())
}

/// True when `password` matches the stored hash.
pub fn check_password(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// A new random token (about 256 bits).
pub fn new_token() -> String {
    random_alphanumeric(43)
}

pub(crate) fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

fn set_cookie(state: &AppState, name: &str, value: &str, max_age: u64) -> String {
    let secure = if state.observer.base_url.starts_with("https://") { "; Secure" } else { "" };
    format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
}

pub(crate) fn page(status: StatusCode, title: &str, body: &str, cookies: &[String]) -> Response {
    let html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{t} · Covers</title><link rel=\"icon\" href=\"data:,\"><style>body{{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}label{{display:block;margin:.5rem 0}}input[type=email],input[type=password]{{width:100%;font:inherit}}table{{border-collapse:collapse;width:100%}}td,th{{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #8884}}.notice{{background:#8882;padding:.5rem 1rem;border-radius:6px}}code{{word-break:break-all}}</style></head><body><h1>{t}</h1>{body}</body></html>",
        t = esc(title)
    );
    let mut response = (status, Html(html)).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            h.append(header::SET_COOKIE, v);
        }
    }
    response
}

pub(crate) fn redirect(to: &str, cookies: &[String]) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(to) {
        h.insert(header::LOCATION, v);
    }
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            h.append(header::SET_COOKIE, v);
        }
    }
    response
}

/// The signed-in account and its session, if the request carries a live session cookie.
pub fn session(state: &AppState, headers: &HeaderMap) -> Option<(Account, Ticket, String)> {
    let token = cookie(headers, SESSION_COOKIE)?;
    let now = service_kit::period::unix_now();
    let ticket = state.store.ticket(&hash(&token), now).ok()??;
    if ticket.kind != "session" {
        return None;
    }
    let account = state.store.account(&ticket.account_id).ok()??;
    Some((account, ticket, token))
}

/// Starts a session: the cookie to set.
fn start_session(state: &AppState, account: &str) -> Option<String> {
    let token = new_token();
    let lifetime = state.config.service.session_lifetime_seconds;
    let ticket = Ticket {
        kind: "session".into(),
        account_id: account.to_owned(),
        csrf: new_token(),
        expires_at: service_kit::period::unix_now() + lifetime,
    };
    state.store.put_ticket(&hash(&token), &ticket).ok()?;
    Some(set_cookie(state, SESSION_COOKIE, &token, lifetime))
}

pub(crate) async fn form(body: Body) -> Option<Vec<(String, String)>> {
    let bytes = axum::body::to_bytes(body, 16 * 1024).await.ok()?;
    Some(form_urlencoded::parse(&bytes).into_owned().collect())
}

pub(crate) fn field<'a>(form: &'a [(String, String)], name: &str) -> &'a str {
    form.iter().rev().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
}

/// Where to go after signing in: `next` when it is a path of this site (`/design/…`), never
/// another site (`//host`, `/\host`, a scheme); the account page otherwise.
fn local_path(next: &str) -> &str {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && next.len() <= 4096
        && next.bytes().all(|b| b.is_ascii_graphic());
    if local {
        next
    } else {
        "/account"
    }
}

/// The signed-in account of one of the designer's JSON requests, or `SIGN_IN_REQUIRED` (401).
/// With `csrf`, the request must also carry the session's token in `X-CSRF-Token` (the page
/// has it in a meta element), or `CSRF_INVALID` (403): a cross-site form or script cannot read it.
pub fn designer_session(state: &AppState, headers: &HeaderMap, csrf: bool) -> Result<(Account, Ticket), ApiError> {
    let Some((account, ticket, _)) = session(state, headers) else {
        return Err(ApiError::new(Code::SignInRequired, "sign in at /signin to save designs and export them"));
    };
    if csrf {
        let sent = headers.get("x-csrf-token").and_then(|v| v.to_str().ok()).unwrap_or("");
        if !service_kit::keys::same_secret(&ticket.csrf, sent) {
            return Err(ApiError::new(Code::CsrfInvalid, "the request lacks the session's X-CSRF-Token"));
        }
    }
    Ok((account, ticket))
}

pub(crate) fn forbidden() -> Response {
    page(StatusCode::FORBIDDEN, "Refused", "<p>The form's security token is missing or wrong; nothing was changed. <a href=\"/signin\">Sign in again</a>.</p>", &[])
}

/// GET /signin: the sign-in form (a double-submit CSRF token in a cookie and the form).
pub async fn signin_form(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let params: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let next = local_path(field(&params, "next"));
    if session(&state, &headers).is_some() {
        return redirect(next, &[]);
    }
    // Reuse the cookie's token only when it is one of ours in shape (43 alphanumerics): a
    // planted cookie must never reach the page's HTML.
    let csrf = cookie(&headers, CSRF_COOKIE)
        .filter(|c| c.len() == 43 && c.bytes().all(|b| b.is_ascii_alphanumeric()))
        .unwrap_or_else(new_token);
    page(
        StatusCode::OK,
        "Sign in",
        &format!("<form method=\"post\" action=\"/signin\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><input type=\"hidden\" name=\"next\" value=\"{next}\"><label>E-mail <input type=\"email\" name=\"email\" required autocomplete=\"username\"></label><label>Password <input type=\"password\" name=\"password\" required autocomplete=\"current-password\"></label><button>Sign in</button></form><p>No password? Ask the operator for a one-time sign-in link.</p>", next = esc(next)),
        &[set_cookie(&state, CSRF_COOKIE, &csrf, 3600)],
    )
}

/// POST /signin: e-mail and password; a session and a redirect to the account page.
pub async fn signin(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let Some(form) = form(body).await else { return forbidden() };
    let expected = cookie(&headers, CSRF_COOKIE).unwrap_or_default();
    if expected.is_empty() || !service_kit::keys::same_secret(&expected, field(&form, "csrf")) {
        return forbidden();
    }
    let (email, password) = (field(&form, "email").to_owned(), field(&form, "password").to_owned());
    let state2 = state.clone();
    let account = tokio::task::spawn_blocking(move || {
        let account = state2.store.account_by_email(&email).ok()??;
        let stored = state2.store.password(&account.id).ok()??;
        check_password(&password, &stored).then_some(account)
    })
    .await
    .ok()
    .flatten();
    match account.and_then(|a| start_session(&state, &a.id)) {
        Some(cookie) => {
            let next = local_path(field(&form, "next"));
            if next.starts_with("/oauth/") {
                // The authorization may send the browser straight on to the app; a redirect
                // chain from this form would be held to this page's `form-action 'self'`, so
                // the next page is a fresh navigation instead.
                let body = format!(
                    "<p>Signed in. <a id=\"continue\" href=\"{0}\">Continue</a></p><meta http-equiv=\"refresh\" content=\"0;url={0}\">",
                    esc(next)
                );
                page(StatusCode::OK, "Signed in", &body, &[cookie])
            } else {
                redirect(next, &[cookie])
            }
        }
        None => page(
            StatusCode::UNAUTHORIZED,
            "Sign in",
            "<p>Wrong e-mail or password. <a href=\"/signin\">Try again</a>.</p>",
            &[],
        ),
    }
}

/// GET /signin/link?token=…: a one-time link; a session and the account page.
pub async fn signin_link(State(state): State<Arc<AppState>>, RawQuery(query): RawQuery) -> Response {
    let params: Vec<(String, String)> =
        form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned().collect();
    let token = field(&params, "token");
    let ticket =
        state.store.ticket(&hash(token), service_kit::period::unix_now()).ok().flatten().filter(|t| t.kind == "link");
    match ticket.and_then(|t| start_session(&state, &t.account_id)) {
        Some(cookie) => redirect("/account", &[cookie]),
        None => page(
            StatusCode::BAD_REQUEST,
            "Link not valid",
            "<p>This sign-in link was used already or has expired. Ask for a new one.</p>",
            &[],
        ),
    }
}

/// POST /signout: ends the session.
pub async fn signout(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let Some((_, ticket, token)) = session(&state, &headers) else { return redirect("/signin", &[]) };
    let Some(form) = form(body).await else { return forbidden() };
    if !service_kit::keys::same_secret(&ticket.csrf, field(&form, "csrf")) {
        return forbidden();
    }
    let _ = state.store.remove_ticket(&hash(&token));
    redirect("/signin", &[set_cookie(&state, SESSION_COOKIE, "", 0)])
}

/// GET /account: the account page.
pub async fn account_page(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    match session(&state, &headers) {
        Some((account, ticket, _)) => render_account(&state, &account, &ticket, None),
        None => redirect("/signin", &[]),
    }
}

fn render_account(state: &AppState, account: &Account, ticket: &Ticket, notice: Option<String>) -> Response {
    let limits = state.config.plan(account.plan);
    let designs = state.store.designs_of(&account.id).unwrap_or_default();
    let uploads = state.store.uploads_of(&account.id).unwrap_or_default();
    let keys = state.store.keys_of(&account.id).unwrap_or_default();
    let csrf = &ticket.csrf;
    let limit = |l: Option<u64>| l.map_or("unlimited".to_owned(), |n| n.to_string());
    let design_rows: String = designs
        .iter()
        .map(|d| {
            format!(
                "<tr><td><a href=\"/design/{id}\">{}</a></td><td>{}</td></tr>",
                esc(&d.name),
                esc(d.intent["format"].as_str().unwrap_or("")),
                id = esc(&d.id)
            )
        })
        .collect();
    let upload_rows: String = uploads
        .iter()
        .map(|u| format!("<tr><td>{}</td><td>{} × {} px</td></tr>", esc(&u.name), u.width, u.height))
        .collect();
    let key_rows: String = keys
        .iter()
        .map(|k| {
            let scopes: Vec<&str> = k.scopes.iter().map(|s| s.name()).collect();
            let action = if k.revoked_at.is_some() {
                "revoked".to_owned()
            } else {
                format!("<form method=\"post\" action=\"/account/keys/{id}/revoke\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><button>Revoke</button></form>", id = esc(&k.id))
            };
            format!("<tr><td><code>{}</code></td><td>{}</td><td>{action}</td></tr>", esc(&k.hint), scopes.join(", "))
        })
        .collect();
    let scope_boxes: String = Scope::ALL
        .iter()
        .map(|s| format!("<label><input type=\"checkbox\" name=\"scope\" value=\"{0}\" checked> {0}</label>", s.name()))
        .collect();
    let body = format!(
        "{notice}<p>Plan: <strong>{plan}</strong>. Saved designs {dc} of {dl}; uploads {uc} of {ul}. Exports: {outputs}.</p>\
         <h2>Designs</h2><table><tr><th>Name</th><th>Format</th></tr>{design_rows}</table>\
         <h2>Uploads</h2><table><tr><th>Name</th><th>Size</th></tr>{upload_rows}</table>\
         <h2>API keys</h2><table><tr><th>Key</th><th>Scopes</th><th></th></tr>{key_rows}</table>\
         <form method=\"post\" action=\"/account/keys\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">{scope_boxes}<button>Create a key</button></form>\
         <h2>Connected apps</h2>{apps}\
         <h2>Session</h2><form method=\"post\" action=\"/signout\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\"><button>Sign out</button></form>",
        notice = notice.unwrap_or_default(),
        plan = account.plan.name(),
        dc = designs.len(),
        dl = limit(limits.designs),
        uc = uploads.len(),
        ul = limit(limits.uploads_library),
        outputs = limits.outputs.join(", "),
        apps = crate::oauth::connected_apps(state, &account.id, csrf),
    );
    page(StatusCode::OK, &format!("Account {}", account.name.as_deref().unwrap_or(&account.id)), &body, &[])
}

/// POST /account/keys: creates a key; the page shows its secret once.
pub async fn create_key(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Body) -> Response {
    let Some((account, ticket, _)) = session(&state, &headers) else { return redirect("/signin", &[]) };
    let Some(form) = form(body).await else { return forbidden() };
    if !service_kit::keys::same_secret(&ticket.csrf, field(&form, "csrf")) {
        return forbidden();
    }
    let scopes: Vec<Scope> = form.iter().filter(|(k, _)| k == "scope").filter_map(|(_, v)| Scope::named(v)).collect();
    if scopes.is_empty() {
        return render_account(
            &state,
            &account,
            &ticket,
            Some("<p class=\"notice\">Choose at least one scope.</p>".into()),
        );
    }
    let (secret, key) = crate::accounts::new_key(&account.id, &scopes);
    if state.store.insert_key(&key).is_err() {
        return page(StatusCode::SERVICE_UNAVAILABLE, "Unavailable", "<p>Storage is unavailable; try again.</p>", &[]);
    }
    let notice = format!(
        "<p class=\"notice\">Your new key, shown only this once: <code id=\"new-key\">{}</code></p>",
        esc(&secret)
    );
    render_account(&state, &account, &ticket, Some(notice))
}

/// POST /account/keys/{id}/revoke: revokes one of the account's keys for good.
pub async fn revoke_key(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> Response {
    let Some((account, ticket, _)) = session(&state, &headers) else { return redirect("/signin", &[]) };
    let Some(form) = form(body).await else { return forbidden() };
    if !service_kit::keys::same_secret(&ticket.csrf, field(&form, "csrf")) {
        return forbidden();
    }
    let owned = state.store.keys_of(&account.id).unwrap_or_default().iter().any(|k| k.id == id);
    if owned {
        let _ = state.store.revoke_key(&id, service_kit::period::unix_now());
    }
    redirect("/account", &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_and_check() {
        let h = hash_password("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(check_password("correct horse battery", &h));
        assert!(!check_password("correct horse battery!", &h));
        assert!(hash_password("short").is_err());
        assert_ne!(hash_password("correct horse battery").unwrap(), h, "salted");
    }
}
