//! The cover service's OpenAPI 3.1 document (`GET /api/v1/openapi.json`): every route, its
//! parameters, bodies, answers and problem documents. CI runs schemathesis against it.

use serde_json::{json, Map, Value};

use crate::api::Code;
use service_kit::problem::ProblemCode;

fn problem_ref() -> Value {
    json!({ "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } })
}

/// The answers every operation may give: its own, plus problem documents for `errors`.
fn responses(ok: (&str, Value), errors: &[u16]) -> Value {
    let mut r = Map::new();
    r.insert(ok.0.to_owned(), ok.1);
    for status in errors {
        let mut answer = json!({ "description": description(*status), "content": problem_ref() });
        if *status == 401 {
            answer["headers"] = json!({ "WWW-Authenticate": { "schema": { "type": "string" }, "required": true } });
        }
        if *status == 429 {
            answer["headers"] = json!({ "Retry-After": { "schema": { "type": "integer" }, "required": true } });
        }
        r.insert(status.to_string(), answer);
    }
    Value::Object(r)
}

fn description(status: u16) -> String {
    let codes: Vec<&str> =
        Code::all().iter().map(|c| c.info()).filter(|i| i.status == status).map(|i| i.name).collect();
    if codes.is_empty() {
        "A problem document.".to_owned()
    } else {
        format!("A problem document: {}.", codes.join(", "))
    }
}

fn json_ok(description: &str, schema: Value) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": schema } } })
}

fn path_param(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": { "type": "string", "minLength": 1, "maxLength": 200 } })
}

fn query(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

const KEYED: &[u16] = &[401, 403];

/// The document, with links to `base`.
pub fn document(base: &str) -> Value {
    let page = |item: Value| {
        json!({ "type": "object", "required": ["items", "nextCursor"], "properties": {
            "items": { "type": "array", "items": item },
            "nextCursor": { "type": ["string", "null"], "description": "Pass as `cursor` for the next page; null on the last." } } })
    };
    let paging = [
        query(
            "limit",
            "Items per page, 1 to 100 (default 20).",
            json!({ "type": "integer", "minimum": 1, "maximum": 100 }),
        ),
        query("cursor", "The previous page's `nextCursor`.", json!({ "type": "string" })),
    ];
    let keyed = |mut op: Value, scope: &str| {
        op["security"] = json!([{ "bearer": [scope] }]);
        op["description"] = format!("{} Scope: `{scope}`. Open CORS.", op["description"].as_str().unwrap_or("")).into();
        op
    };
    let intent = json!({ "$ref": "#/components/schemas/Intent" });
    let design_summary = json!({ "type": "object", "required": ["designId", "name", "format", "createdAt", "url", "previewUrl"], "properties": {
        "designId": { "type": "string" }, "name": { "type": "string" }, "format": { "type": "string" }, "title": { "type": ["string", "null"] },
        "createdAt": { "type": "string" }, "url": { "type": "string" }, "previewUrl": { "type": "string" }, "intent": { "type": "object" } } });
    let upload = json!({ "type": "object", "required": ["ref", "id", "name", "mimeType", "width", "height", "bytes", "previewUrl"], "properties": {
        "ref": { "type": "string", "pattern": "^upload:" }, "id": { "type": "string" }, "name": { "type": "string" },
        "mimeType": { "enum": ["image/png", "image/jpeg"] }, "width": { "type": "integer" }, "height": { "type": "integer" },
        "bytes": { "type": "integer" }, "createdAt": { "type": "string" }, "previewUrl": { "type": "string" } } });
    let job = json!({ "type": "object", "required": ["jobId", "designId", "output", "status", "createdAt"], "properties": {
        "jobId": { "type": "string" }, "designId": { "type": "string" }, "output": { "enum": ["preview", "png", "pdf"] },
        "status": { "enum": ["queued", "running", "done", "failed", "expired"] }, "createdAt": { "type": "string" }, "finishedAt": { "type": "string" },
        "error": { "type": "object", "properties": { "code": { "type": "string" }, "message": { "type": "string" } } },
        "file": { "type": "object", "required": ["url", "mimeType", "widthPx", "heightPx", "bytes", "expiresInSeconds"], "properties": {
            "url": { "type": "string" }, "mimeType": { "type": "string" }, "widthPx": { "type": "integer" }, "heightPx": { "type": "integer" },
            "bytes": { "type": "integer" }, "expiresInSeconds": { "type": "integer" } } } } });
    let any_object = json!({ "type": "object" });
    let svg = json!({ "description": "SVG.", "content": { "image/svg+xml": { "schema": { "type": "string" } } } });
    let png = json!({ "description": "PNG.", "content": { "image/png": { "schema": { "type": "string", "format": "binary" } } } });
    let mut compose_link_responses = responses(
        (
            "200",
            json!({ "description": "Without parameters, the intent's JSON Schema; a client that follows the 303 gets the designer page.",
            "content": { "application/json": { "schema": any_object.clone() }, "text/html": { "schema": { "type": "string" } } } }),
        ),
        &[400, 422],
    );
    compose_link_responses["303"] = json!({ "description": "Composed: the designer's address.", "headers": { "Location": { "schema": { "type": "string" }, "required": true } } });
    let paths = json!({
        "/api/v1/formats": { "get": { "operationId": "listFormats", "summary": "Every format with its printed size.", "description": "No key.",
            "responses": responses(("200", json_ok("Formats.", json!({ "type": "object", "required": ["items", "dpi"], "properties": { "items": { "type": "array" }, "dpi": { "const": 600 } } }))), &[]) } },
        "/api/v1/formats/{slug}": { "get": { "operationId": "describeFormat", "summary": "One format's geometry in pixels at 600 DPI.", "description": "No key.",
            "parameters": [path_param("slug", "The format's slug."),
                query("panels", "Panel count where the format offers a choice (cd-insert 1-3, jcard 3-8).", json!({ "type": "integer" })),
                query("flap", "J-card flap: standard, short, extended or tapered.", json!({ "type": "string" }))],
            "responses": responses(("200", json_ok("The geometry.", json!({ "type": "object", "required": ["slug", "panels", "trim", "bleed", "sheet", "units"] }))), &[400, 404]) } },
        "/api/v1/decals": { "get": { "operationId": "listDecals", "summary": "The decal catalogue.", "description": "No key.",
            "responses": responses(("200", json_ok("Decals and categories.", json!({ "type": "object", "required": ["items", "categories"] }))), &[]) } },
        "/api/v1/decals/{category}/{file}": { "get": { "operationId": "decalArtwork", "summary": "One decal's SVG.", "description": "No key.",
            "parameters": [path_param("category", "Its category."), path_param("file", "`<name>.svg`.")],
            "responses": responses(("200", svg.clone()), &[404]) } },
        "/api/v1/content/search": { "get": { "operationId": "searchContent", "summary": "Titles matching a query, best first, from the configured providers.", "description": "No key.",
            "parameters": [query("type", "movie, tv or album (default movie).", json!({ "type": "string" })), query("q", "The title, year recommended (1-200 characters).", json!({ "type": "string" }))],
            "responses": responses(("200", json_ok("Titles.", json!({ "type": "object", "required": ["items"], "properties": { "items": { "type": "array" } } }))), &[400]) } },
        "/api/v1/content/{type}/{id}": { "get": { "operationId": "getContent", "summary": "One title by namespaced id (`builtin:metropolis-1927`, `tmdb:603`, `mb:<mbid>`).", "description": "No key.",
            "parameters": [path_param("type", "movie, tv or album."), path_param("id", "`<provider>:<id>`.")],
            "responses": responses(("200", json_ok("The title.", any_object.clone())), &[400, 404]) } },
        "/api/v1/content/{type}/{id}/artwork/{kind}": { "get": { "operationId": "contentArtwork", "summary": "A title's image from the local catalogue or an online provider.", "description": "No key.",
            "parameters": [path_param("type", "movie, tv or album."), path_param("id", "`<provider>:<id>`."), path_param("kind", "poster, logo, still or cover.")],
            "responses": responses(("200", json!({ "description": "The image.", "content": { "image/png": { "schema": { "type": "string", "format": "binary" } }, "image/jpeg": { "schema": { "type": "string", "format": "binary" } } } })), &[400, 404]) } },
        "/api/v1/content/art/{kind}/{file}": { "get": { "operationId": "builtinArtwork", "summary": "Generated artwork of a built-in title.", "description": "No key.",
            "parameters": [path_param("kind", "poster, logo, still or cover."), path_param("file", "`<slug>.svg`.")],
            "responses": responses(("200", svg.clone()), &[404]) } },
        "/api/compose": {
            "get": { "operationId": "composeLink", "summary": "Without parameters: the intent's JSON Schema. With them: compose and redirect (303) to the designer.",
                "description": "No key. Parameters: format (required), q, type, color, bg, font, finish, logo, hide, panels, flap, seed, qr and the text overrides (title, tagline, year, rating, runtime, studio, synopsis, director, starring, genre). Invalid optional values are dropped; an unmatched search still lands in the designer.",
                "parameters": [query("format", "The format's slug.", json!({ "type": "string" })), query("q", "The title to search.", json!({ "type": "string" })),
                    query("type", "movie, tv or album.", json!({ "type": "string" })), query("finish", "worn, clean or plain.", json!({ "type": "string" }))],
                "responses": compose_link_responses },
            "post": { "operationId": "compose", "summary": "Compose a design from an intent; its designer URL and what was applied.", "description": "No key; uploads need a key (they are dropped and reported here).",
                "requestBody": { "required": true, "content": { "application/json": { "schema": intent.clone() } } },
                "responses": responses(("200", json_ok("Composed.", json!({ "type": "object", "required": ["url", "applied", "unsupported"], "properties": {
                    "url": { "type": "string" }, "applied": { "type": "array", "items": { "type": "string" } }, "unsupported": { "$ref": "#/components/schemas/Unsupported" }, "content": { "type": ["object", "null"] } } }))), &[400, 413, 422]) } },
        "/api/v1/account": { "get": keyed(json!({ "operationId": "getAccount", "summary": "The plan, today's quotas and when they reset, design and upload counts and limits.", "description": "Null quotas and limits are unlimited.",
            "responses": responses(("200", json_ok("The account.", json!({ "type": "object", "required": ["id", "plan", "quotas", "resetsAt", "designs", "uploads", "outputs"] }))), KEYED) }), "read") },
        "/api/v1/designs": {
            "get": keyed(json!({ "operationId": "listDesigns", "summary": "The account's saved designs, newest first.", "description": "Paged.",
                "parameters": paging.clone(), "responses": responses(("200", json_ok("A page.", page(design_summary.clone()))), &[400, 401, 403]) }), "read"),
            "post": keyed(json!({ "operationId": "saveDesign", "summary": "Compose and save in one call.", "description": "Counts a compose; TIER_REQUIRED when the plan's designs are all used.",
                "requestBody": { "required": true, "content": { "application/json": { "schema": intent.clone() } } },
                "responses": responses(("201", json_ok("Saved.", json!({ "type": "object", "required": ["designId", "url", "applied", "unsupported"] }))), &[400, 401, 402, 403, 413, 422, 429]) }), "design:write") },
        "/api/v1/designs/{id}": {
            "get": keyed(json!({ "operationId": "getDesign", "summary": "One saved design with its intent.", "description": "",
                "parameters": [path_param("id", "The design id.")], "responses": responses(("200", json_ok("The design.", design_summary)), &[401, 403, 404]) }), "read"),
            "delete": keyed(json!({ "operationId": "deleteDesign", "summary": "Delete a saved design.", "description": "",
                "parameters": [path_param("id", "The design id.")], "responses": responses(("204", json!({ "description": "Deleted." })), &[401, 403, 404]) }), "design:write") },
        "/api/v1/designs/{id}/export": { "post": keyed(json!({ "operationId": "exportDesign", "summary": "Queue a render of a saved design.", "description": "PNG and PDF need a member plan (TIER_REQUIRED otherwise); counts an export.",
            "parameters": [path_param("id", "The design id.")],
            "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["output"], "properties": {
                "output": { "enum": ["preview", "png", "pdf"] }, "paper": { "enum": ["fit", "a4", "letter", "tabloid", "a3"] }, "bleed": { "type": "boolean" }, "marks": { "type": "boolean" } } } } } },
            "responses": responses(("202", json!({ "description": "Queued.", "headers": { "Location": { "schema": { "type": "string" }, "required": true } },
                "content": { "application/json": { "schema": { "type": "object", "required": ["jobId", "status"], "properties": { "jobId": { "type": "string" }, "status": { "const": "queued" } } } } } })), &[400, 401, 402, 403, 404, 413, 429]) }), "export") },
        "/api/v1/exports/{id}": { "get": keyed(json!({ "operationId": "getExport", "summary": "An export job; when done, its file with a signed one-hour link.", "description": "",
            "parameters": [path_param("id", "The job id.")], "responses": responses(("200", json_ok("The job.", job)), &[401, 403, 404]) }), "export") },
        "/api/v1/exports/{id}/file": { "get": { "operationId": "downloadExport", "summary": "The export's file, by signed link.", "description": "No key: the link (expires, sig) is the credential.",
            "parameters": [path_param("id", "The job id."), query("expires", "Unix seconds.", json!({ "type": "integer" })), query("sig", "The signature.", json!({ "type": "string" }))],
            "responses": responses(("200", json!({ "description": "The file.", "content": { "image/png": { "schema": { "type": "string", "format": "binary" } }, "application/pdf": { "schema": { "type": "string", "format": "binary" } } } })), &[403, 404, 410]) } },
        "/api/v1/uploads": {
            "get": keyed(json!({ "operationId": "listUploads", "summary": "The account's uploads, newest first.", "description": "Paged.",
                "parameters": paging, "responses": responses(("200", json_ok("A page.", page(upload.clone()))), &[400, 401, 403]) }), "read"),
            "post": keyed(json!({ "operationId": "uploadImage", "summary": "Upload a PNG or JPEG (at most 4 MB).",
                "description": "Multipart (`file`, `name`) or JSON (`data` base64 or a data: URL). Sniffed, size-checked before decoding, written again without metadata. LIBRARY_IMAGE_LIMIT when the library is full; counts an upload.",
                "requestBody": { "required": true, "content": {
                    "multipart/form-data": { "schema": { "type": "object", "required": ["file"], "properties": { "file": { "type": "string", "format": "binary" }, "name": { "type": "string" } } } },
                    "application/json": { "schema": { "type": "object", "required": ["data"], "properties": { "name": { "type": "string" }, "mimeType": { "enum": ["image/png", "image/jpeg"] }, "data": { "type": "string" } } } } } },
                "responses": responses(("201", json_ok("Uploaded.", upload)), &[400, 401, 403, 409, 413, 429]) }), "design:write") },
        "/api/v1/uploads/{id}": { "delete": keyed(json!({ "operationId": "deleteUpload", "summary": "Delete an upload (designs keep their copies).", "description": "",
            "parameters": [path_param("id", "The upload id.")], "responses": responses(("204", json!({ "description": "Deleted." })), &[401, 403, 404]) }), "design:write") },
        "/api/v1/uploads/{id}/preview.png": { "get": keyed(json!({ "operationId": "uploadPreview", "summary": "An upload's preview (at most 320 px).", "description": "",
            "parameters": [path_param("id", "The upload id.")], "responses": responses(("200", png.clone()), &[401, 403, 404]) }), "read") },
        "/api/v1/errors": { "get": { "operationId": "errorReference", "summary": "The error reference page.", "description": "No key.",
            "responses": { "200": { "description": "HTML.", "content": { "text/html": { "schema": { "type": "string" } } } } } } },
        "/api/v1/openapi.json": { "get": { "operationId": "openapi", "summary": "This document.", "description": "No key.",
            "responses": { "200": json_ok("OpenAPI 3.1.", any_object) } } }
    });
    json!({
        "openapi": "3.1.0",
        "info": { "title": "Cover service", "version": env!("CARGO_PKG_VERSION"),
            "description": "Printable media covers from a title or album. Keyed routes take `Authorization: Bearer cvr_live_…` and answer with open CORS; problem documents follow RFC 9457 with a stable `code` (see /api/v1/errors). Lists are `{items, nextCursor}`. The designer pages (`/design/{id}`) are for browsers and not part of this document." },
        "servers": [{ "url": base }],
        "paths": paths,
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "description": "An API key `cvr_live_…` from `covers admin key create`." } },
            "schemas": {
                "Problem": { "type": "object", "required": ["type", "title", "status", "code", "detail"], "properties": {
                    "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" },
                    "code": { "enum": Code::all().iter().map(|c| c.info().name).collect::<Vec<_>>() }, "detail": { "type": "string" },
                    "instance": { "type": "string" }, "field": { "type": "string" } } },
                "Unsupported": { "type": "array", "items": { "type": "object", "required": ["field", "reason"], "properties": { "field": { "type": "string" }, "reason": { "type": "string" } } } },
                "Intent": covers_engine::intent::schema_for_openapi()
            }
        }
    })
}
