//! Browser sign-in of the cover service over HTTP: passwords set by `covers admin account
//! password` (stdin), one-time links, the session cookie's attributes, CSRF tokens on every form
//! (a POST without one changes nothing), keys created and revoked on the account page, sign-out
//! and session expiry.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::covers::{admin, start};
use common::request;

fn csrf_of(page: &str) -> String {
    let at = page.find("name=\"csrf\" value=\"").expect("a CSRF field") + "name=\"csrf\" value=\"".len();
    page[at..at + 43].to_owned()
}

fn cookie_of(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_owned()
}

#[test]
fn passwords_links_sessions_and_csrf() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("covers.toml");
    std::fs::write(&config, "[service]\nsession_lifetime_seconds = 3\n").unwrap();
    let c = start(&data, &config);
    let id = admin(&data, &["account", "create", "--plan", "starter", "--name", "Ann", "--email", "Ann@Example.org"])
        ["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_covers"))
        .args(["admin", "account", "password", &id, "--data-dir", data.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"correct horse battery\n").unwrap();
    assert!(child.wait_with_output().unwrap().status.success());

    // The form sets a double-submit token; a POST without it changes nothing.
    let form = request(c.addr, "GET", "/signin", &[], None);
    assert_eq!(form.status, 200);
    let pre = cookie_of(form.header("set-cookie").unwrap());
    let csrf = csrf_of(&form.body);
    // A planted cookie of the right length never reaches the page: a fresh token replaces it.
    let planted = format!("covers_csrf=\"><b>{}", "x".repeat(38));
    let replanted = request(c.addr, "GET", "/signin", &[("Cookie", planted.as_str())], None);
    assert!(!replanted.body.contains("<b>xxx"), "{}", replanted.body);
    assert_eq!(csrf_of(&replanted.body).len(), 43);
    let post = |cookie: &str, body: String| {
        request(
            c.addr,
            "POST",
            "/signin",
            &[("Cookie", cookie), ("Content-Type", "application/x-www-form-urlencoded")],
            Some(body.as_bytes()),
        )
    };
    assert_eq!(post(&pre, "email=ann%40example.org&password=correct+horse+battery".into()).status, 403);
    assert_eq!(
        post("", format!("csrf={csrf}&email=ann%40example.org&password=correct+horse+battery")).status,
        403,
        "the cookie half is needed too"
    );
    assert_eq!(post(&pre, format!("csrf={csrf}&email=ann%40example.org&password=wrong+password")).status, 401);
    let ok = post(&pre, format!("csrf={csrf}&email=ANN%40example.org&password=correct+horse+battery"));
    assert_eq!((ok.status, ok.header("location")), (303, Some("/account")));
    let set = ok.header("set-cookie").unwrap().to_owned();
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.starts_with("covers_session="), "{set}");
    let session = cookie_of(&set);

    // The account page; a key created there works on the API, shown once.
    let page = request(c.addr, "GET", "/account", &[("Cookie", &session)], None);
    assert!(page.status == 200 && page.body.contains("Plan: <strong>starter</strong>"), "{}", page.body);
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let token = csrf_of(&page.body);
    let form_post = |path: &str, body: String| {
        request(
            c.addr,
            "POST",
            path,
            &[("Cookie", &session), ("Content-Type", "application/x-www-form-urlencoded")],
            Some(body.as_bytes()),
        )
    };
    assert_eq!(form_post("/account/keys", "scope=read".into()).status, 403, "no CSRF token");
    assert!(
        admin(&data, &["key", "list", "--account", &id])["keys"].as_array().unwrap().is_empty(),
        "nothing was created"
    );
    let created = form_post("/account/keys", format!("csrf={token}&scope=read&scope=export"));
    let at = created.body.find("id=\"new-key\">").unwrap() + "id=\"new-key\">".len();
    let secret = created.body[at..at + 41].to_owned();
    assert!(secret.starts_with("cvr_live_"));
    let bearer = format!("Bearer {secret}");
    let me = request(c.addr, "GET", "/api/v1/account", &[("Authorization", &bearer)], None).json();
    assert_eq!(me["id"], id.as_str());
    assert!(
        !request(c.addr, "GET", "/account", &[("Cookie", &session)], None).body.contains(&secret),
        "shown only once"
    );
    let key_id = admin(&data, &["key", "list", "--account", &id])["keys"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(form_post(&format!("/account/keys/{key_id}/revoke"), format!("csrf={token}")).status, 303);
    assert_eq!(
        request(c.addr, "GET", "/api/v1/account", &[("Authorization", &bearer)], None).json()["code"],
        "API_KEY_INVALID"
    );

    // Sign out ends the session.
    assert_eq!(form_post("/signout", "csrf=wrong".into()).status, 403);
    let out = form_post("/signout", format!("csrf={token}"));
    assert_eq!((out.status, out.header("location")), (303, Some("/signin")));
    assert_eq!(request(c.addr, "GET", "/account", &[("Cookie", &session)], None).header("location"), Some("/signin"));

    // A one-time link signs in once.
    let link = admin(&data, &["account", "login-link", &id]);
    let url = link["url"].as_str().unwrap();
    let path = &url[url.find("/signin/link").unwrap()..];
    let first = request(c.addr, "GET", path, &[], None);
    assert_eq!(first.status, 303);
    let linked = cookie_of(first.header("set-cookie").unwrap());
    assert_eq!(request(c.addr, "GET", "/account", &[("Cookie", &linked)], None).status, 200);
    assert_eq!(request(c.addr, "GET", path, &[], None).status, 400, "used already");
    // Sessions expire (3 s here).
    std::thread::sleep(Duration::from_millis(3200));
    assert_eq!(request(c.addr, "GET", "/account", &[("Cookie", &linked)], None).header("location"), Some("/signin"));
}
