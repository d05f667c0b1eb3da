//! The designer page (`GET /design/{id}`): server-rendered, with a small dependency-free script
//! (`assets/designer.js`). The sheet is the server's own SVG of the design with its bleed, trim,
//! safe area and folds; every edit (texts, colours, finish, font, hidden fields, dragging and
//! resizing texts and decals, layers) is sent whole to `PUT /design/{id}`, which answers with the
//! new SVG drawn by the same scene code as the exports, so the live preview is the export. Undo
//! and redo keep the intents in the page. The preview PNG downloads without an account.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use covers_engine::content::Title;
use covers_engine::intent::{Intent, FINISHES, HIDEABLE, LAYERS};
use covers_engine::scene::{self, Guides};
use covers_engine::{Format, Kind};

/// The designer's static files, embedded: (name, media type, content).
const ASSETS: [(&str, &str, &str); 2] = [
    ("designer.js", "text/javascript; charset=utf-8", include_str!("../assets/designer.js")),
    ("designer.css", "text/css; charset=utf-8", include_str!("../assets/designer.css")),
];

fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// GET /design/assets/{name}: the designer's script and style sheet.
pub async fn asset(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    match ASSETS.iter().find(|(n, ..)| *n == name) {
        Some((_, mime, body)) => {
            let mut response = (*body).into_response();
            let h = response.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
            h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
            response
        }
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// The fields a format's design can hide: everything for video formats; the audio formats'
/// own parts for audio.
fn hideable(format: &Format) -> Vec<&'static str> {
    match format.kind {
        Kind::Video => HIDEABLE.iter().copied().filter(|f| !["tracklist", "qr"].contains(f)).collect(),
        Kind::Audio => vec!["poster", "title", "spineTitle", "tracklist", "qr"],
    }
}

/// Who looks at a design, which decides what the page offers.
pub enum Viewer {
    /// A composed design: anyone with its address edits it; `csrf` (the session's token) when
    /// signed in, to offer saving it to the account.
    Composed {
        /// The session's CSRF token, when signed in.
        csrf: Option<String>,
    },
    /// A saved design seen by its owner: edits are saved to the account, and it exports.
    Owner {
        /// The session's CSRF token.
        csrf: String,
        /// The design's name.
        name: String,
        /// The outputs the account's plan exports.
        outputs: Vec<String>,
    },
    /// A saved design seen by anyone else: read-only.
    ReadOnly {
        /// The design's name.
        name: String,
    },
}

impl Viewer {
    fn mode(&self) -> &'static str {
        match self {
            Viewer::Composed { .. } => "composed",
            Viewer::Owner { .. } => "owner",
            Viewer::ReadOnly { .. } => "readonly",
        }
    }

    fn csrf(&self) -> Option<&str> {
        match self {
            Viewer::Composed { csrf } => csrf.as_deref(),
            Viewer::Owner { csrf, .. } => Some(csrf),
            Viewer::ReadOnly { .. } => None,
        }
    }

    /// The account part of the toolbar: sign in, save, or the saved design's name and exports.
    fn tools(&self, id: &str) -> String {
        match self {
            Viewer::Composed { csrf: None } => format!(
                "<a id=\"signin\" href=\"/signin?next=/design/{id}\">Sign in to save and export</a>"
            ),
            Viewer::Composed { csrf: Some(_) } => "<span class=\"account\"><label>Name <input id=\"save-name\" maxlength=\"200\" placeholder=\"My cover\"></label> <button type=\"button\" id=\"save\">Save to my account</button></span>".to_owned(),
            Viewer::Owner { name, outputs, .. } => {
                let output_options: String = ["preview", "png", "pdf"]
                    .iter()
                    .map(|o| {
                        if outputs.iter().any(|x| x == o) {
                            format!("<option value=\"{o}\">{}</option>", o.to_uppercase())
                        } else {
                            format!("<option value=\"{o}\" disabled>{} (not in your plan)</option>", o.to_uppercase())
                        }
                    })
                    .collect();
                let papers: String = ["fit", "a4", "letter", "tabloid", "a3"]
                    .iter()
                    .map(|p| format!("<option value=\"{p}\">{p}</option>"))
                    .collect();
                format!(
                    "<span class=\"account\">Saved as <strong>{}</strong> · <a href=\"/account\">Account</a></span><span id=\"export\" class=\"account\"><label>Export <select id=\"export-output\">{output_options}</select></label> <label>Paper <select id=\"export-paper\">{papers}</select></label> <button type=\"button\" id=\"export-start\">Export</button> <span id=\"export-status\" role=\"status\" aria-live=\"polite\"></span> <a id=\"export-file\" hidden download>Download the file</a></span>",
                    esc(name)
                )
            }
            Viewer::ReadOnly { name } => format!(
                "<span class=\"account\">Saved design <strong>{}</strong>, read-only: only its owner, signed in, edits and exports it.</span>",
                esc(name)
            ),
        }
    }
}

/// The page of a design.
pub fn page(
    id: &str,
    format: &Format,
    intent: &Intent,
    title: Option<&Title>,
    images: &scene::Images,
    viewer: &Viewer,
) -> Response {
    let svg = scene::render(format, intent, title, images, 72, Guides { show: true });
    let heading = title.map(|t| format!("{} ({})", t.title, t.year)).unwrap_or_else(|| "New design".to_owned());
    let video = format.kind == Kind::Video;
    let finishes = video || format.slug == "jcard";
    let options = |values: &[&str], chosen: &str| -> String {
        values
            .iter()
            .map(|v| format!("<option{}>{}</option>", if *v == chosen { " selected" } else { "" }, esc(v)))
            .collect()
    };
    let fonts: Vec<&str> = covers_engine::fonts::FAMILIES.iter().map(|f| f.name).collect();
    let font = intent.font.as_deref().unwrap_or(covers_engine::fonts::DEFAULT_FAMILY);
    let hide_boxes: String = hideable(format)
        .iter()
        .map(|f| {
            format!(
                "<label class=\"check\"><input type=\"checkbox\" name=\"show\" value=\"{f}\"{}> {f}</label>",
                if intent.hide.contains(f) { "" } else { " checked" }
            )
        })
        .collect();
    let decal_options: String = covers_engine::decals::catalogue()
        .iter()
        .map(|d| format!("<option value=\"{}\">{} ({})</option>", esc(&d.id), esc(&d.name), esc(d.category)))
        .chain(title.into_iter().flat_map(|t| {
            t.artwork.iter().map(|a| format!("<option value=\"{}\">{}: {}</option>", esc(&a.id), esc(&t.title), a.kind))
        }))
        .collect();
    let title_fields = if video {
        let value =
            |key: &str, fallback: &str| intent.overrides.get(key).cloned().unwrap_or_else(|| fallback.to_owned());
        format!(
            "<fieldset><legend>Title and text</legend><label>Title <input name=\"title\" value=\"{}\" maxlength=\"2000\"></label><label>Tagline <input name=\"tagline\" value=\"{}\" maxlength=\"2000\"></label><label>Synopsis <textarea name=\"synopsis\" rows=\"3\" maxlength=\"2000\">{}</textarea></label></fieldset>",
            esc(&value("title", title.map_or("", |t| t.title.as_str()))),
            esc(&value("tagline", title.map_or("", |t| t.tagline.as_str()))),
            esc(&value("synopsis", title.map_or("", |t| t.synopsis.as_str()))),
        )
    } else {
        String::new()
    };
    // The intent travels in a JSON script element the browser never executes. Every `<` is
    // written `\u003c` (the same string to JSON), so no text of the design can close the element
    // or open a comment that changes where it ends.
    let intent_json = intent.to_json().to_string().replace('<', "\\u003c");
    let page = format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{h} · {f}</title><meta name="robots" content="noindex">{csrf_meta}<link rel="icon" href="data:,"><link rel="stylesheet" href="/design/assets/designer.css"><script src="/design/assets/designer.js" defer></script></head><body><header><h1>{h}</h1><p>{f}: {w} × {hh} mm, bleed {b} mm. Red: trim; green dashes: safe area; blue dashes: folds.</p><nav class="tools" aria-label="Design"><button type="button" id="undo" disabled>Undo</button><button type="button" id="redo" disabled>Redo</button><a id="download" href="/design/{id}/preview.png" download="preview.png">Download the preview (PNG)</a><a href="/design/{id}/preview.svg" download="preview.svg">SVG</a><span id="status" role="status" aria-live="polite"></span>{account_tools}</nav></header><main id="designer" data-id="{id}" data-kind="{kind}" data-mode="{mode}"><div id="sheet" class="sheet">{svg}</div><form id="panel" autocomplete="off"><fieldset><legend>Style</legend><label>Background <input type="color" name="background" value="{bg}"></label><label>Text colour <input type="color" name="labelColor" value="{ink}"></label><label>Font <select name="font">{font_options}</select></label>{finish}</fieldset>{title_fields}<fieldset><legend>Show</legend>{hide_boxes}</fieldset><fieldset><legend>Texts</legend><div id="texts"></div><button type="button" id="add-text">Add a text</button></fieldset><fieldset><legend>Decals</legend><div id="decals"></div><label>Decal <select id="decal-choice">{decal_options}</select></label><button type="button" id="add-decal">Add the decal</button></fieldset><p class="hint">Drag texts and decals on the sheet. Click one to select it, then press + or − to resize it, or Delete to remove it. Ctrl+Z undoes, Ctrl+Y redoes.</p></form></main><script type="application/json" id="intent">{intent_json}</script><script type="application/json" id="layers">{layers}</script></body></html>"#,
        h = esc(&heading),
        f = esc(format.name),
        w = format.width_mm.round(),
        hh = format.height_mm.round(),
        b = format.bleed_mm,
        kind = if video { "video" } else { "audio" },
        bg = esc(intent.background.as_deref().unwrap_or("#111111")),
        ink = esc(intent.label_color.as_deref().unwrap_or("#ffffff")),
        font_options = options(&fonts, font),
        finish = if finishes {
            format!("<label>Finish <select name=\"finish\">{}</select></label>", options(&FINISHES, intent.finish))
        } else {
            String::new()
        },
        layers = serde_json::to_string(&LAYERS).unwrap_or_default(),
        csrf_meta =
            viewer.csrf().map(|c| format!("<meta name=\"csrf-token\" content=\"{}\">", esc(c))).unwrap_or_default(),
        account_tools = viewer.tools(id),
        mode = viewer.mode(),
    );
    let mut response = Html(page).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
