//! The OpenAPI document and the handlers agree on every bound: for each documented operation,
//! each bounded query parameter, path parameter and body field is sent one step past each of
//! its bounds (which must be refused with 400 `VALIDATION_ERROR` naming that field) and exactly
//! at each bound (which must not be refused for that field). Numbers come from the served
//! document, so a bound changed on one side only fails here.

mod common;

use common::Server;
use serde_json::{json, Map, Value};

const PATRON: &str = "[tiers.patron]\nreads_per_minute = -1\nfills_per_month = -1\nai_clues_per_month = -1\n[limits]\nfills_per_account = 4\n";

/// Follows a local `$ref`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => doc.pointer(r.trim_start_matches('#')).expect("the $ref resolves"),
        None => schema,
    }
}

/// The values one step outside and exactly at each bound of `schema`, for a field called
/// `name` whose valid example is `example`. A `grid` is a list of rows: its probes are square
/// empty grids. A path parameter cannot be empty, so its minimum length is not probed.
fn probes(name: &str, location: &str, schema: &Value, example: &Value) -> Vec<(Value, bool)> {
    let mut out = Vec::new();
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    match schema["type"].as_str() {
        Some("integer") => {
            if let Some(min) = num("minimum") {
                out.push((json!(min as i64 - 1), false));
                out.push((json!(min as i64), true));
            }
            if let Some(max) = num("maximum") {
                out.push((json!(max as i64 + 1), false));
                out.push((json!(max as i64), true));
            }
        }
        Some("number") => {
            if let Some(min) = num("minimum") {
                out.push((json!(min - 0.5), false));
                out.push((json!(min), true));
            }
            if let Some(max) = num("maximum") {
                out.push((json!(max + 0.5), false));
                out.push((json!(max), true));
            }
        }
        Some("string") => {
            let sample = example.as_str().and_then(|s| s.chars().next()).unwrap_or('A');
            let text = |n: usize| json!(std::iter::repeat_n(sample, n).collect::<String>());
            if let Some(min) = num("minLength").filter(|&m| m > 0.0 && location != "path") {
                out.push((text(min as usize - 1), false));
                out.push((text(min as usize), true));
            }
            if let Some(max) = num("maxLength") {
                out.push((text(max as usize + 1), false));
                out.push((text(max as usize), true));
            }
        }
        Some("array") => {
            let item = example.get(0).cloned().unwrap_or(json!("A"));
            let list = |n: usize| match name {
                "grid" => Value::Array(vec![json!(".".repeat(n)); n]),
                _ => Value::Array(vec![item.clone(); n]),
            };
            if let Some(min) = num("minItems").filter(|&m| m > 0.0) {
                out.push((list(min as usize - 1), false));
                out.push((list(min as usize), true));
            }
            if let Some(max) = num("maxItems") {
                out.push((list(max as usize + 1), false));
                out.push((list(max as usize), true));
            }
        }
        _ => {}
    }
    out
}

/// One probe: the field it moves, the request, and whether the value is within bounds.
struct Case {
    field: String,
    path: String,
    body: Option<String>,
    allowed: bool,
}

fn query_string(params: &Map<String, Value>) -> String {
    params
        .iter()
        .map(|(k, v)| {
            let v = v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
            let encoded: String = v
                .bytes()
                .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
                .collect();
            format!("{k}={encoded}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The probes of one operation: a valid request made of the documented examples (a letter where
/// there is none), with one bounded parameter or body field moved at a time.
fn cases(doc: &Value, path: &str, op: &Value) -> Vec<Case> {
    let mut query = Map::new();
    let mut path_params = Map::new();
    let mut bounded_params = Vec::new();
    for p in op["parameters"].as_array().into_iter().flatten() {
        let example = p["examples"].as_object().and_then(|e| e.values().next()).map(|e| e["value"].clone());
        let example = example.unwrap_or(json!("A"));
        let (name, location) = (p["name"].as_str().unwrap(), p["in"].as_str().unwrap());
        match location {
            "query" if p["required"] == true => drop(query.insert(name.into(), example.clone())),
            "path" => drop(path_params.insert(name.into(), example.clone())),
            _ => {}
        }
        if location != "header" {
            bounded_params.push((name.to_owned(), location.to_owned(), p["schema"].clone(), example));
        }
    }
    let body_media = &op["requestBody"]["content"]["application/json"];
    let body_example = body_media["examples"].as_object().and_then(|e| e.values().next()).map(|e| e["value"].clone());
    let body_example = body_example.unwrap_or(json!({}));
    let has_body = op.get("requestBody").is_some();
    let case =
        |field: &str, query: &Map<String, Value>, path_params: &Map<String, Value>, body: Option<&Value>, allowed| {
            let mut p = format!("/api/v1{path}");
            for (k, v) in path_params {
                let v = v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
                p = p.replace(&format!("{{{k}}}"), &v);
            }
            if !query.is_empty() {
                p = format!("{p}?{}", query_string(query));
            }
            Case { field: field.to_owned(), path: p, body: body.map(Value::to_string), allowed }
        };
    let mut out = Vec::new();
    for (name, location, schema, example) in &bounded_params {
        for (value, allowed) in probes(name, location, schema, example) {
            let (mut q, mut pp) = (query.clone(), path_params.clone());
            let target = if location == "path" { &mut pp } else { &mut q };
            target.insert(name.clone(), value);
            out.push(case(name, &q, &pp, has_body.then_some(&body_example), allowed));
        }
    }
    let body_schema = resolve(doc, &body_media["schema"]);
    for (name, field) in body_schema["properties"].as_object().into_iter().flatten() {
        let example = body_example.get(name).cloned().unwrap_or(json!("A"));
        for (value, allowed) in probes(name, "body", resolve(doc, field), &example) {
            let mut body = body_example.clone();
            body[name] = value;
            out.push(case(name, &query, &path_params, Some(&body), allowed));
        }
    }
    out
}

#[test]
fn every_documented_bound_is_the_one_the_handler_enforces() {
    let s = Server::start(&["en"], Some(PATRON));
    let (_, key) = s.account_with_key("patron", "");
    let doc = s.get("/api/v1/openapi.json", &[]).json();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for c in cases(&doc, path, op) {
                let body = c.body.as_deref().map(str::as_bytes);
                let r = common::request(s.addr, &method.to_uppercase(), &c.path, &[("X-Api-Key", &key)], body);
                let refused_for_field = r.status == 400 && r.json()["field"] == c.field.as_str();
                let field = &c.field;
                if c.allowed {
                    assert!(
                        !refused_for_field,
                        "{method} {path}: `{field}` at its documented bound was refused: {}",
                        r.body
                    );
                } else {
                    assert!(
                        refused_for_field,
                        "{method} {path}: `{field}` past its documented bound got {}: {}",
                        r.status, r.body
                    );
                }
                checked += 1;
            }
        }
    }
    // GET /words (pattern, min_score, limit), POST /words/scores (words), POST /fill (grid,
    // min_score, max_time, seed), /fill/cancel, /fill/improve, and the three clue operations.
    assert!(checked >= 60, "only {checked} bounds were probed");
}
