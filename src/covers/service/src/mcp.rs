//! The MCP connector at `/mcp`: Streamable HTTP through the official Rust SDK (`rmcp`, pinned),
//! speaking the handshake protocol (2025-11-25 and earlier) and the stateless one (2026-07-28).
//!
//! * Sixteen tools, each the twin of an HTTP route and calling the same function (`crate::ops`,
//!   `crate::api`, `crate::designs`): no second implementation. Every tool has an input and an
//!   output schema, answers `structuredContent` with `applied` and `unsupported` (arguments taken
//!   and arguments dropped, with the reason) plus a one-line text summary, and fails as a tool
//!   error carrying the REST problem document (same `code`).
//! * Signed out, the design tools work (formats, decals, content, compose). The account tools need
//!   a bearer: an API key (`cvr_live_…`) or an OAuth access token issued for this resource
//!   (`crate::oauth`). Without one, a call to an account tool is answered with HTTP 401 and
//!   `WWW-Authenticate: Bearer resource_metadata=…` so the app starts sign-in; an invalid or
//!   expired token gets 401 `invalid_token`; an OAuth token without the tool's scope gets 403
//!   `insufficient_scope` naming it. An API key without the scope gets the `FORBIDDEN_SCOPE`
//!   tool error, as on REST.
//! * `Host` and `Origin` are checked against the public base URL (DNS rebinding).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::accounts::{Account, Scope};
use crate::api::{ApiError, AppState, Code};

/// The connector's path.
pub const PATH: &str = "/mcp";

/// Who calls a tool: the account, the scopes its credential carries and, for OAuth, the app.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The account.
    pub account: Account,
    /// Scopes of the key or token.
    pub scopes: Vec<Scope>,
    /// The OAuth client id, when the credential is an access token (not an API key).
    pub client_id: Option<String>,
}

/// One tool: its name, what it tells the app, the scope it needs (none: signed out works),
/// its arguments and schemas.
pub struct ToolSpec {
    /// Tool name.
    pub name: &'static str,
    /// Human-readable title.
    pub title: &'static str,
    /// What it does and when to use it, for the model.
    pub description: &'static str,
    /// The HTTP route it is the twin of.
    pub twin: &'static str,
    /// The scope it needs; `None`: works signed out.
    pub scope: Option<Scope>,
    /// Read-only (no state changes).
    pub read_only: bool,
    /// Deletes something.
    pub destructive: bool,
    /// The input schema.
    pub input: fn() -> Value,
    /// The output schema (of `structuredContent`).
    pub output: fn() -> Value,
}

fn obj(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": true })
}

/// `applied` and `unsupported`, in every output.
fn report_props(mut properties: Value) -> Value {
    properties["applied"] = json!({ "type": "array", "items": { "type": "string" } });
    properties["unsupported"] = json!({ "type": "array", "items": {
        "type": "object", "required": ["field", "reason"],
        "properties": { "field": { "type": "string" }, "reason": { "type": "string" } } } });
    properties
}

fn output(properties: Value, required: &[&str]) -> Value {
    let mut all: Vec<&str> = required.to_vec();
    all.extend(["applied", "unsupported"]);
    obj(report_props(properties), &all)
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

fn paging_args() -> Value {
    json!({ "type": "object", "properties": {
        "limit": { "type": "integer", "minimum": 1, "maximum": 100, "default": 20 },
        "cursor": { "type": "string", "description": "`nextCursor` of the previous page." } } })
}

fn list_out(item: Value) -> Value {
    output(
        json!({ "items": { "type": "array", "items": item }, "nextCursor": { "type": ["string", "null"] } }),
        &["items", "nextCursor"],
    )
}

fn intent_args(with_name: bool) -> Value {
    let mut s = covers_engine::intent::schema_for_openapi();
    if let Some(o) = s.as_object_mut() {
        o.remove("$id");
        o.remove("title");
        if with_name {
            o.entry("properties").or_insert_with(|| json!({}))["name"] =
                json!({ "type": "string", "maxLength": 200, "description": "The design's name in the account." });
        }
    }
    s
}

fn design_item() -> Value {
    obj(
        json!({ "designId": { "type": "string" }, "name": { "type": "string" }, "format": { "type": "string" },
            "title": { "type": ["string", "null"] }, "createdAt": { "type": "string" },
            "url": { "type": "string" }, "previewUrl": { "type": "string" } }),
        &["designId", "name", "format", "url", "previewUrl"],
    )
}

fn upload_item() -> Value {
    obj(
        json!({ "ref": { "type": "string" }, "id": { "type": "string" }, "name": { "type": "string" },
            "mimeType": { "type": "string" }, "width": { "type": "integer" }, "height": { "type": "integer" },
            "bytes": { "type": "integer" }, "createdAt": { "type": "string" }, "previewUrl": { "type": "string" } }),
        &["ref", "id", "mimeType", "width", "height", "previewUrl"],
    )
}

fn content_types() -> Value {
    json!({ "enum": ["movie", "tv", "album"] })
}

/// The sixteen tools, in the contract's order.
pub const TOOLS: [ToolSpec; 16] = [
    ToolSpec {
        name: "list_formats",
        title: "List cover formats",
        description: "Lists every composable cover format (VHS slipcover, DVD and Blu-ray cases, vinyl, CD inserts, cassette J-cards…) with its slug, kind (video or audio) and printed size in mm and inches. Start here to pick the `format` for compose_design or save_design.",
        twin: "GET /api/v1/formats",
        scope: None,
        read_only: true,
        destructive: false,
        input: no_args,
        output: || {
            output(
                json!({ "items": { "type": "array", "items": obj(json!({ "slug": { "type": "string" }, "name": { "type": "string" }, "kind": { "enum": ["video", "audio"] } }), &["slug", "name", "kind"]) },
                    "dpi": { "type": "integer" } }),
                &["items", "dpi"],
            )
        },
    },
    ToolSpec {
        name: "describe_format",
        title: "Describe a format",
        description: "One format's panels (front, back, spine, flaps…) as pixel rectangles at the 600 DPI export size, with trim, bleed, safe area and folds, plus the units compose_design uses (x, y and widths are percentages of the trim). `panels` (3 to 8) and `flap` choose a cassette J-card's layout.",
        twin: "GET /api/v1/formats/{slug}",
        scope: None,
        read_only: true,
        destructive: false,
        input: || {
            json!({ "type": "object", "required": ["slug"], "properties": {
                "slug": { "type": "string", "description": "A slug from list_formats, e.g. `dvd-cover`." },
                "panels": { "type": "integer", "minimum": 3, "maximum": 8 },
                "flap": { "enum": ["standard", "short", "extended", "tapered"] } } })
        },
        output: || {
            output(
                json!({ "slug": { "type": "string" }, "name": { "type": "string" }, "dpi": { "type": "integer" },
                    "panels": { "type": "array" }, "trim": { "type": "object" }, "bleed": { "type": "object" } }),
                &["slug", "dpi", "panels", "trim"],
            )
        },
    },
    ToolSpec {
        name: "list_decals",
        title: "List decals",
        description: "Every sticker, shape, badge and distributor-style mark by id (e.g. `stickers/new`), with its category, pixel size and a preview address. Place one with `decals: [{id, x, y, width}]` in compose_design.",
        twin: "GET /api/v1/decals",
        scope: None,
        read_only: true,
        destructive: false,
        input: no_args,
        output: || {
            output(
                json!({ "items": { "type": "array", "items": obj(json!({ "id": { "type": "string" } }), &["id"]) },
                    "categories": { "type": "array" } }),
                &["items", "categories"],
            )
        },
    },
    ToolSpec {
        name: "get_content",
        title: "Get a title's artwork",
        description: "A movie, show or album by its id from search_content (e.g. `builtin:metropolis-1927`), with its posters, wordmark logos and stills as decal ids that compose_design can place.",
        twin: "GET /api/v1/content/{type}/{id}",
        scope: None,
        read_only: true,
        destructive: false,
        input: || {
            json!({ "type": "object", "required": ["type", "id"], "properties": {
                "type": content_types(), "id": { "type": "string", "description": "`provider:key` as search_content gives it." } } })
        },
        output: || {
            output(
                json!({ "id": { "type": "string" }, "title": { "type": "string" }, "year": {}, "artwork": { "type": "array" } }),
                &["id", "title"],
            )
        },
    },
    ToolSpec {
        name: "search_content",
        title: "Search titles",
        description: "Looks up a movie, TV show or album by its title (add the year for precision) and returns the matches, best first, so you can confirm the right one with the user before composing.",
        twin: "GET /api/v1/content/search",
        scope: None,
        read_only: true,
        destructive: false,
        input: || {
            json!({ "type": "object", "required": ["query"], "properties": {
                "type": content_types(), "query": { "type": "string", "minLength": 1, "maxLength": 200 } } })
        },
        output: || output(json!({ "items": { "type": "array", "items": obj(json!({ "id": { "type": "string" }, "title": { "type": "string" } }), &["id", "title"]) } }), &["items"]),
    },
    ToolSpec {
        name: "compose_design",
        title: "Compose a design",
        description: "Builds a cover design from an intent (format, content query, style, texts, decals, layout) without an account and returns the designer URL to open. Invalid optional fields are dropped and listed in `unsupported`; what was taken is in `applied`. Uploaded images need save_design.",
        twin: "POST /api/compose",
        scope: None,
        read_only: false,
        destructive: false,
        input: || intent_args(false),
        output: || {
            output(
                json!({ "url": { "type": "string" }, "content": { "type": ["object", "null"] } }),
                &["url", "content"],
            )
        },
    },
    ToolSpec {
        name: "get_account",
        title: "Get the account",
        description: "The signed-in account's plan, today's remaining composes, uploads and exports (null: unlimited) and when they reset, its design and upload counts and limits, and the outputs its plan exports.",
        twin: "GET /api/v1/account",
        scope: Some(Scope::Read),
        read_only: true,
        destructive: false,
        input: no_args,
        output: || {
            output(
                json!({ "id": { "type": "string" }, "plan": { "type": "string" }, "quotas": { "type": "object" },
                    "resetsAt": { "type": "string" }, "designs": { "type": "object" }, "uploads": { "type": "object" },
                    "outputs": { "type": "array", "items": { "type": "string" } } }),
                &["id", "plan", "quotas", "resetsAt", "designs", "uploads", "outputs"],
            )
        },
    },
    ToolSpec {
        name: "upload_image",
        title: "Upload an image",
        description: "Puts a PNG or JPEG (sent in the call as base64 or a data: URL; the server never fetches a URL) into the account's uploads library and returns its `upload:<id>` ref, for `images.panels.<panel>`, `images.background` or a decal's `ref` in save_design. The request is at most 4.5 MB, so the image at most about 3.3 MB.",
        twin: "POST /api/v1/uploads",
        scope: Some(Scope::DesignWrite),
        read_only: false,
        destructive: false,
        input: || {
            json!({ "type": "object", "required": ["data"], "properties": {
                "name": { "type": "string", "maxLength": 120 },
                "mimeType": { "enum": ["image/png", "image/jpeg"] },
                "data": { "type": "string", "description": "The image as base64, or a data: URL." } } })
        },
        output: || {
            let mut o = upload_item();
            o["properties"] = report_props(o["properties"].take());
            if let Some(r) = o["required"].as_array_mut() {
                r.extend([json!("applied"), json!("unsupported")]);
            }
            o
        },
    },
    ToolSpec {
        name: "list_uploads",
        title: "List uploads",
        description: "The account's uploads library, newest first, with refs and preview links; pages of `limit` with `nextCursor`.",
        twin: "GET /api/v1/uploads",
        scope: Some(Scope::Read),
        read_only: true,
        destructive: false,
        input: paging_args,
        output: || list_out(upload_item()),
    },
    ToolSpec {
        name: "delete_upload",
        title: "Delete an upload",
        description: "Removes an image from the uploads library to free a slot. Saved designs keep their own copies.",
        twin: "DELETE /api/v1/uploads/{id}",
        scope: Some(Scope::DesignWrite),
        read_only: false,
        destructive: true,
        input: || {
            json!({ "type": "object", "required": ["id"], "properties": {
                "id": { "type": "string", "description": "The upload's id or its `upload:<id>` ref." } } })
        },
        output: || output(json!({ "deleted": { "type": "string" } }), &["deleted"]),
    },
    ToolSpec {
        name: "save_design",
        title: "Save a design",
        description: "Composes and saves a design to the account in one call: the compose_design intent plus a `name`; uploaded images go on panels (`images.panels.front: {ref}`), the background or as decals. Returns `designId` and the designer `url`. Counts one compose; the plan limits saved designs (TIER_REQUIRED when full).",
        twin: "POST /api/v1/designs",
        scope: Some(Scope::DesignWrite),
        read_only: false,
        destructive: false,
        input: || intent_args(true),
        output: || output(json!({ "designId": { "type": "string" }, "url": { "type": "string" } }), &["designId", "url"]),
    },
    ToolSpec {
        name: "list_designs",
        title: "List saved designs",
        description: "The account's saved designs, newest first, with the URL that opens each in the designer and a preview link; pages of `limit` with `nextCursor`.",
        twin: "GET /api/v1/designs",
        scope: Some(Scope::Read),
        read_only: true,
        destructive: false,
        input: paging_args,
        output: || list_out(design_item()),
    },
    ToolSpec {
        name: "get_design",
        title: "Get a saved design",
        description: "One saved design with its stored intent (the parameters to change and save again).",
        twin: "GET /api/v1/designs/{id}",
        scope: Some(Scope::Read),
        read_only: true,
        destructive: false,
        input: || json!({ "type": "object", "required": ["designId"], "properties": { "designId": { "type": "string" } } }),
        output: || {
            let mut o = design_item();
            o["properties"]["intent"] = json!({ "type": "object" });
            o["properties"] = report_props(o["properties"].take());
            if let Some(r) = o["required"].as_array_mut() {
                r.extend([json!("intent"), json!("applied"), json!("unsupported")]);
            }
            o
        },
    },
    ToolSpec {
        name: "delete_design",
        title: "Delete a saved design",
        description: "Removes a saved design and its image copies, freeing a design slot.",
        twin: "DELETE /api/v1/designs/{id}",
        scope: Some(Scope::DesignWrite),
        read_only: false,
        destructive: true,
        input: || json!({ "type": "object", "required": ["designId"], "properties": { "designId": { "type": "string" } } }),
        output: || output(json!({ "deleted": { "type": "string" } }), &["deleted"]),
    },
    ToolSpec {
        name: "export_design",
        title: "Export a print file",
        description: "Queues a render of a saved design: `preview` (a downscaled image, every plan), `png` (600 DPI) or `pdf` (print PDF with bleed and crop marks; `paper` fit, a4, letter, tabloid or a3) for members. Returns `jobId`; poll get_export until `done`.",
        twin: "POST /api/v1/designs/{id}/export",
        scope: Some(Scope::Export),
        read_only: false,
        destructive: false,
        input: || {
            json!({ "type": "object", "required": ["designId", "output"], "properties": {
                "designId": { "type": "string" },
                "output": { "enum": ["preview", "png", "pdf"] },
                "paper": { "enum": ["fit", "a4", "letter", "tabloid", "a3"], "default": "fit" },
                "bleed": { "type": "boolean", "default": true },
                "marks": { "type": "boolean", "default": true } } })
        },
        output: || output(json!({ "jobId": { "type": "string" }, "status": { "type": "string" } }), &["jobId", "status"]),
    },
    ToolSpec {
        name: "get_export",
        title: "Get an export",
        description: "An export job's status (queued, running, done, failed or expired); when done, `file.url` is a signed download link valid for an hour. Poll every few seconds.",
        twin: "GET /api/v1/exports/{jobId}",
        scope: Some(Scope::Export),
        read_only: true,
        destructive: false,
        input: || json!({ "type": "object", "required": ["jobId"], "properties": { "jobId": { "type": "string" } } }),
        output: || {
            output(
                json!({ "jobId": { "type": "string" }, "designId": { "type": "string" }, "output": { "type": "string" },
                    "status": { "enum": ["queued", "running", "done", "failed", "expired"] },
                    "file": obj(json!({ "url": { "type": "string" }, "mimeType": { "type": "string" }, "bytes": { "type": "integer" },
                        "widthPx": { "type": "integer" }, "heightPx": { "type": "integer" }, "expiresInSeconds": { "type": "integer" } }), &["url", "mimeType", "bytes"]) }),
                &["jobId", "status"],
            )
        },
    },
];

/// The tool of this name.
pub fn tool(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The arguments a tool's input schema names (the intent tools take every intent field).
fn known_args(spec: &ToolSpec) -> Vec<String> {
    (spec.input)()["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

fn arg<'a>(args: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    args.get(name).filter(|v| !v.is_null())
}

fn text_arg<'a>(args: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, ApiError> {
    match arg(args, name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::validation(name, format!("`{name}` is a string"))),
    }
}

fn required_text<'a>(args: &'a Map<String, Value>, name: &str) -> Result<&'a str, ApiError> {
    text_arg(args, name)?.ok_or_else(|| ApiError::validation(name, format!("`{name}` is required")))
}

/// A whole-number argument as the REST routes take it from a query string.
fn number_text(args: &Map<String, Value>, name: &str) -> Result<Option<String>, ApiError> {
    match arg(args, name) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::validation(name, format!("`{name}` is a whole number"))),
    }
}

/// Runs a tool for `caller` (blocking: providers, storage and image decoding). The result is
/// the HTTP twin's JSON with `applied` and `unsupported`.
pub fn run(state: &AppState, caller: Option<&Caller>, name: &str, args: Map<String, Value>) -> Result<Value, ApiError> {
    let spec = tool(name).ok_or_else(|| ApiError::new(Code::NotFound, format!("no tool {name:?}")))?;
    let account = match spec.scope {
        None => None,
        Some(scope) => {
            let caller = caller.ok_or_else(|| {
                ApiError::new(Code::ApiKeyRequired, "sign in (OAuth) or send `Authorization: Bearer <key>`")
            })?;
            if !caller.scopes.contains(&scope) {
                return Err(ApiError::new(
                    Code::ForbiddenScope,
                    format!("this credential lacks the `{}` scope", scope.name()),
                )
                .with("requiredScope", scope.name()));
            }
            Some(&caller.account)
        }
    };
    // The intent tools report through the intent's own `applied`/`unsupported`; the others
    // report their arguments against the input schema (built only for them).
    let intent_tool = matches!(name, "compose_design" | "save_design");
    let known = if intent_tool { Vec::new() } else { known_args(spec) };
    let (taken, dropped): (Vec<&String>, Vec<&String>) =
        args.keys().filter(|_| !intent_tool).partition(|k| known.contains(k));
    let applied: Vec<Value> = taken.into_iter().map(|k| json!(k)).collect();
    let unsupported: Vec<Value> = dropped
        .into_iter()
        .map(|key| json!({ "field": key, "reason": format!("not an argument of {name}") }))
        .collect();
    let need = || account.ok_or_else(|| ApiError::new(Code::ApiKeyRequired, "sign in first"));
    let base = &state.observer.base_url;
    let mut out = match name {
        "list_formats" => crate::api::formats_document(),
        "describe_format" => {
            let panels = number_text(&args, "panels")?;
            crate::api::format_document(required_text(&args, "slug")?, panels.as_deref(), text_arg(&args, "flap")?)?
        }
        "list_decals" => crate::api::decals_document(base),
        "get_content" => crate::api::get_content(state, required_text(&args, "type")?, required_text(&args, "id")?)?,
        "search_content" => {
            crate::api::search_content(state, text_arg(&args, "type")?, Some(required_text(&args, "query")?))?
        }
        "compose_design" => crate::designs::compose_document(state, &Value::Object(args.clone()))?,
        "get_account" => crate::ops::account_document(state, need()?),
        "upload_image" => {
            let (bytes, name) = crate::ops::decode_upload_json(&Value::Object(args.clone()))?;
            crate::ops::add_upload(state, need()?, &bytes, name)?
        }
        "list_uploads" => {
            let limit = number_text(&args, "limit")?;
            crate::ops::list_uploads(state, need()?, limit.as_deref(), text_arg(&args, "cursor")?)?
        }
        "delete_upload" => {
            let id = required_text(&args, "id")?;
            let id = id.strip_prefix("upload:").unwrap_or(id);
            crate::ops::delete_upload(state, need()?, id)?;
            json!({ "deleted": id })
        }
        "save_design" => crate::ops::save_design(state, need()?, &Value::Object(args.clone()))?,
        "list_designs" => {
            let limit = number_text(&args, "limit")?;
            crate::ops::list_designs(state, need()?, limit.as_deref(), text_arg(&args, "cursor")?)?
        }
        "get_design" => crate::ops::get_design(state, need()?, required_text(&args, "designId")?)?,
        "delete_design" => {
            let id = required_text(&args, "designId")?;
            crate::ops::delete_design(state, need()?, id)?;
            json!({ "deleted": id })
        }
        "export_design" => {
            let id = required_text(&args, "designId")?.to_owned();
            let mut body = args.clone();
            body.remove("designId");
            let job = crate::ops::export_design(state, need()?, &id, &Value::Object(body))?;
            json!({ "jobId": job.id, "status": job.status })
        }
        "get_export" => crate::ops::export_status(state, need()?, required_text(&args, "jobId")?)?,
        _ => return Err(ApiError::new(Code::NotFound, format!("no tool {name:?}"))),
    };
    if let Some(o) = out.as_object_mut() {
        if !o.contains_key("applied") {
            o.insert("applied".into(), Value::Array(applied));
        }
        let list = o.entry("unsupported").or_insert_with(|| json!([]));
        if let Some(list) = list.as_array_mut() {
            list.extend(unsupported);
        }
    }
    Ok(out)
}

/// A short text for the conversation, beside `structuredContent`.
fn summary(name: &str, v: &Value) -> String {
    let count = |k: &str| v[k].as_array().map_or(0, Vec::len);
    let dropped = count("unsupported");
    let tail =
        if dropped > 0 { format!(" ({dropped} argument(s) not applied: see `unsupported`)") } else { String::new() };
    let head = match name {
        "list_formats" => format!("{} formats.", count("items")),
        "describe_format" => format!("{} at {} DPI.", v["name"].as_str().unwrap_or("The format"), v["dpi"]),
        "list_decals" => format!("{} decals.", count("items")),
        "get_content" => {
            format!("{} ({}), {} artwork item(s).", v["title"].as_str().unwrap_or("?"), v["year"], count("artwork"))
        }
        "search_content" => format!("{} match(es).", count("items")),
        "compose_design" | "save_design" => format!("Open the design: {}", v["url"].as_str().unwrap_or("")),
        "get_account" => format!("Plan {}.", v["plan"].as_str().unwrap_or("?")),
        "upload_image" => format!("Uploaded as {}.", v["ref"].as_str().unwrap_or("?")),
        "list_uploads" | "list_designs" => format!("{} item(s).", count("items")),
        "delete_upload" | "delete_design" => format!("Deleted {}.", v["deleted"].as_str().unwrap_or("?")),
        "get_design" => format!("{}: {}", v["name"].as_str().unwrap_or("?"), v["url"].as_str().unwrap_or("")),
        "export_design" => format!(
            "Export {} is {}; poll get_export.",
            v["jobId"].as_str().unwrap_or("?"),
            v["status"].as_str().unwrap_or("?")
        ),
        "get_export" => match v["file"]["url"].as_str() {
            Some(url) => format!("Done: {url}"),
            None => format!("The export is {}.", v["status"].as_str().unwrap_or("?")),
        },
        _ => String::new(),
    };
    head + &tail
}

/// The rmcp handler: the tool list and calls, over the shared state.
#[derive(Clone)]
pub struct Connector {
    state: Arc<AppState>,
}

impl Connector {
    fn tools() -> Vec<Tool> {
        TOOLS
            .iter()
            .map(|t| {
                let schema = |v: Value| Arc::new(v.as_object().cloned().unwrap_or_default());
                Tool::new(t.name, t.description, schema((t.input)()))
                    .with_title(t.title)
                    .with_raw_output_schema(schema((t.output)()))
                    .with_annotations(
                        ToolAnnotations::with_title(t.title)
                            .read_only(t.read_only)
                            .destructive(t.destructive)
                            .open_world(false),
                    )
            })
            .collect()
    }
}

impl ServerHandler for Connector {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("covers", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Designs printable media covers (VHS slipcovers, DVD and Blu-ray cases, vinyl, CD inserts, cassette J-cards). \
             Pick a format with list_formats, confirm the title with search_content, then compose_design and give the user the URL. \
             Signed in, save_design keeps it, upload_image adds the user's artwork, and export_design with get_export makes the print file."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(Self::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let caller = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned();
        let name = request.name.to_string();
        if tool(&name).is_none() {
            return Err(McpError::invalid_params(format!("no tool {name:?}"), None));
        }
        let args = request.arguments.unwrap_or_default();
        let state = self.state.clone();
        let tool_name = name.clone();
        let done = tokio::task::spawn_blocking(move || run(&state, caller.as_ref(), &tool_name, args))
            .await
            .unwrap_or_else(|_| Err(ApiError::new(Code::Unavailable, "the tool failed; try again")));
        Ok(match done {
            Ok(v) => {
                let text = summary(&name, &v);
                let mut result = CallToolResult::structured(v);
                result.content.insert(0, ContentBlock::text(text));
                result
            }
            Err(e) => {
                let problem = e.body();
                let text = format!(
                    "{}: {}",
                    problem["code"].as_str().unwrap_or("ERROR"),
                    problem["detail"].as_str().unwrap_or("the tool failed")
                );
                let mut result = CallToolResult::structured_error(problem);
                result.content.insert(0, ContentBlock::text(text));
                result
            }
        }
        .into())
    }
}

/// The `/mcp` routes: the gate (credentials, challenges, body limit) in front of rmcp's
/// Streamable HTTP service.
pub fn routes(state: Arc<AppState>) -> axum::Router<Arc<AppState>> {
    let base = state.observer.base_url.clone();
    let (hosts, origins) = host_and_origin(&base);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(crate::designs::MAX_BODY);
    let factory_state = state.clone();
    let service = StreamableHttpService::new(
        move || Ok(Connector { state: factory_state.clone() }),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new().route_service(PATH, service).layer(axum::middleware::from_fn_with_state(state, gate))
}

/// The hosts (`host` and `host:port`) and the origins the public base URL allows. A server
/// listening on every address without a public base URL (`http://0.0.0.0:PORT`) also answers
/// its loopback names; behind a proxy, set `public_base_url`.
fn host_and_origin(base: &str) -> (Vec<String>, Vec<String>) {
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    let authority = rest.split('/').next().unwrap_or(rest).to_owned();
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !h.is_empty() && !h.ends_with(':') => {
            (h.to_owned(), Some(p.to_owned()))
        }
        _ => (authority.clone(), None),
    };
    let mut hosts = vec![authority.clone()];
    let mut origins = vec![format!("{scheme}://{authority}")];
    if port.is_some() {
        hosts.push(host.trim_matches(['[', ']']).to_owned());
    }
    if ["0.0.0.0", "[::]"].contains(&host.as_str()) {
        for name in ["localhost", "127.0.0.1", "[::1]"] {
            let with_port = port.as_ref().map_or(name.to_owned(), |p| format!("{name}:{p}"));
            hosts.push(with_port.clone());
            hosts.push(name.trim_matches(['[', ']']).to_owned());
            origins.push(format!("{scheme}://{with_port}"));
        }
    }
    (hosts, origins)
}

/// The protected-resource metadata address for `/mcp` (RFC 9728, path-suffixed form).
pub fn resource_metadata_url(base: &str) -> String {
    format!("{base}/.well-known/oauth-protected-resource{PATH}")
}

/// The resource identifier access tokens are bound to.
pub fn resource(base: &str) -> String {
    format!("{base}{PATH}")
}

/// A 401 or 403 challenge (RFC 6750 / RFC 9728) that starts or steps up the app's sign-in.
fn challenge(state: &AppState, status: StatusCode, error: Option<&str>, scope: &str, detail: &str) -> Response {
    let mut value =
        format!("Bearer resource_metadata=\"{}\", scope=\"{scope}\"", resource_metadata_url(&state.observer.base_url));
    if let Some(e) = error {
        value.push_str(&format!(", error=\"{e}\""));
    }
    let code = if status == StatusCode::FORBIDDEN {
        Code::ForbiddenScope
    } else if error.is_some() {
        Code::ApiKeyInvalid
    } else {
        Code::ApiKeyRequired
    };
    let mut response = ApiError::new(code, detail).status(status).into_response();
    if let Ok(v) = HeaderValue::from_str(&value) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}

/// Every scope, space-separated, as challenges name them.
pub fn all_scopes() -> String {
    Scope::ALL.iter().map(|s| s.name()).collect::<Vec<_>>().join(" ")
}

/// The gate: reads the credential (an API key or an OAuth access token for this resource),
/// answers challenges for account tools called signed out or with a token lacking the scope,
/// and hands the caller to the tools in the request's extensions.
async fn gate(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match parts.headers.get(header::AUTHORIZATION) {
        None => None,
        Some(value) => {
            let secret = value
                .to_str()
                .ok()
                .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
                .map(str::trim)
                .unwrap_or("");
            let state2 = state.clone();
            let secret = secret.to_owned();
            let found =
                tokio::task::spawn_blocking(move || crate::oauth::bearer(&state2, &secret)).await.ok().flatten();
            match found {
                Some(c) => Some(c),
                None => {
                    return challenge(
                        &state,
                        StatusCode::UNAUTHORIZED,
                        Some("invalid_token"),
                        &all_scopes(),
                        "the bearer is not valid (unknown, revoked, expired or for another resource)",
                    )
                }
            }
        }
    };
    let body = if parts.method == axum::http::Method::POST {
        let Ok(bytes) = axum::body::to_bytes(body, crate::designs::MAX_BODY).await else {
            return ApiError::new(Code::PayloadTooLarge, "the body is larger than 4.5 MB").into_response();
        };
        let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if message["method"] == "tools/call" {
            if let Some(spec) = message["params"]["name"].as_str().and_then(tool) {
                if let Some(scope) = spec.scope {
                    match &caller {
                        None => {
                            return challenge(
                                &state,
                                StatusCode::UNAUTHORIZED,
                                None,
                                &all_scopes(),
                                &format!("{} needs sign-in", spec.name),
                            )
                        }
                        Some(c) if c.client_id.is_some() && !c.scopes.contains(&scope) => {
                            return challenge(
                                &state,
                                StatusCode::FORBIDDEN,
                                Some("insufficient_scope"),
                                scope.name(),
                                &format!("{} needs the `{}` scope", spec.name, scope.name()),
                            )
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        Body::from(bytes)
    } else {
        body
    };
    if let Some(c) = caller {
        parts.extensions.insert(c);
    }
    next.run(Request::from_parts(parts, body)).await
}

/// The tool table of `docs/covers/mcp.md`, generated from [`TOOLS`] (a test keeps the document
/// in step with the code).
pub fn tools_markdown() -> String {
    let mut out = String::from("| Tool | Scope | HTTP twin | What it does |\n|---|---|---|---|\n");
    for t in &TOOLS {
        let scope = t.scope.map_or("none (signed out)".to_owned(), |s| format!("`{}`", s.name()));
        out.push_str(&format!("| `{}` | {scope} | `{}` | {} |\n", t.name, t.twin, t.description.replace('|', "\\|")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_schemas_and_the_document_lists_them() {
        for t in &TOOLS {
            let input = (t.input)();
            let output = (t.output)();
            assert_eq!(input["type"], "object", "{}", t.name);
            assert_eq!(output["type"], "object", "{}", t.name);
            let required: Vec<&str> = output["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            assert!(required.contains(&"applied") && required.contains(&"unsupported"), "{}", t.name);
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../docs/covers/mcp.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (begin, end) = ("<!-- tools:begin -->\n", "<!-- tools:end -->");
        let start = doc.find(begin).expect("the tools markers") + begin.len();
        let stop = doc.find(end).expect("the tools markers");
        if std::env::var_os("UPDATE_DOCS").is_some() {
            let updated = format!("{}{}{}", &doc[..start], tools_markdown(), &doc[stop..]);
            std::fs::write(path, updated).unwrap();
        } else {
            assert_eq!(
                &doc[start..stop],
                tools_markdown(),
                "docs/covers/mcp.md is behind the code: UPDATE_DOCS=1 cargo test -p covers-service"
            );
        }
    }

    #[test]
    fn the_base_url_gives_hosts_and_origin() {
        let (hosts, origins) = host_and_origin("https://covers.example.org");
        assert_eq!(hosts, ["covers.example.org"]);
        assert_eq!(origins, ["https://covers.example.org"]);
        let (hosts, origins) = host_and_origin("http://127.0.0.1:8080");
        assert_eq!(hosts, ["127.0.0.1:8080", "127.0.0.1"]);
        assert_eq!(origins, ["http://127.0.0.1:8080"]);
        let (hosts, origins) = host_and_origin("http://0.0.0.0:8080");
        assert!(hosts.contains(&"localhost:8080".to_owned()) && hosts.contains(&"::1".to_owned()));
        assert!(origins.contains(&"http://localhost:8080".to_owned()));
    }
}
