//! GET /puzzles/{id}/export: the puzzle as JSON (the GET /puzzles/{id} object), an Across Lite
//! `.puz` file, ipuz, a printable HTML page, or the numbered grid as SVG. The writers are the
//! puzzle engine's; this module picks one, names the file and sets the headers.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use crossword_puzzle::{FormatError, Puzzle};

use super::auth::{internal, metered};
use super::error::{ApiError, ApiResult, Code};
use super::extract::{query_pairs, query_param};
use super::puzzles::{credit_line, puzzle_json};
use super::state::AppState;
use crate::store::{Scope, Status};

/// The formats, in the order the document lists them.
pub const FORMATS: [&str; 6] = ["json", "puz", "ipuz", "html", "pdf", "svg"];
/// Paper sizes of the printable formats.
pub const PAPERS: [&str; 2] = ["letter", "a4"];
/// The query parameters export understands; any other is a 400 naming it.
pub const PARAMETERS: [&str; 3] = ["format", "paper", "solution"];

/// A file name for the puzzle: its title in lower-case ASCII words joined by `-` (or
/// `puzzle-ID` when the title has none), and the extension.
pub fn file_name(p: &Puzzle, extension: &str) -> String {
    let mut slug = String::new();
    for ch in p.title.chars() {
        if ch.is_ascii_alphanumeric() {
            slug.push(ch.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= 60 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        format!("puzzle-{}.{extension}", p.id)
    } else {
        format!("{slug}.{extension}")
    }
}

fn format_error(e: FormatError) -> ApiError {
    let mut err = ApiError::validation(&e.field, e.message);
    if !e.missing_clues.is_empty() {
        err = err.with("missingClues", e.missing_clues);
    }
    err
}

fn file(bytes: impl Into<axum::body::Body>, content_type: &'static str, disposition: &str) -> Response {
    let mut response = Response::new(bytes.into());
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(v) = HeaderValue::from_str(disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

/// GET /puzzles/{id}/export.
pub async fn export(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let (state, headers) = (&state, &headers);
    metered(state, headers, Scope::Read, |caller| async move {
        let params = query_pairs(query.as_deref().unwrap_or(""));
        if let Some((name, _)) = params.iter().find(|(k, _)| !PARAMETERS.contains(&k.as_str())) {
            return Err(ApiError::validation(
                name,
                format!("export has no option `{name}` (options: format, paper, solution)"),
            ));
        }
        let format = query_param(&params, "format").unwrap_or("json");
        if !FORMATS.contains(&format) {
            return Err(ApiError::validation("format", format!("`format` must be one of {}", FORMATS.join(", "))));
        }
        let paper = query_param(&params, "paper").unwrap_or("letter");
        if !PAPERS.contains(&paper) {
            return Err(ApiError::validation("paper", "`paper` must be `letter` or `a4`"));
        }
        let solution = match query_param(&params, "solution") {
            None | Some("false") => false,
            Some("true") => true,
            Some(_) => return Err(ApiError::validation("solution", "`solution` must be `true` or `false`")),
        };
        let p = match state.store.puzzle(&id).map_err(internal)? {
            Some(p) if p.owner == caller.account.id || p.status == Status::Published => p,
            _ => return Err(ApiError::new(Code::NotFound, format!("no puzzle {id}"))),
        };
        if format == "pdf" {
            return pdf(state, p, paper, solution).await;
        }
        render(state, &p, format, solution)
    })
    .await
}

/// The PDF, made on the blocking pool (shaping and font subsetting are CPU work).
async fn pdf(state: &Arc<AppState>, p: Puzzle, paper: &str, solution: bool) -> ApiResult<Response> {
    use crossword_puzzle::pdf::{self, Paper, PdfError};
    let paper = if paper == "a4" { Paper::A4 } else { Paper::Letter };
    let state2 = state.clone();
    let puzzle = p.clone();
    let made = tokio::task::spawn_blocking(move || {
        let sheet = puzzle
            .sheet()
            .ok_or_else(|| PdfError::Puzzle(FormatError::new("grid", "the stored grid no longer parses")))?;
        pdf::write(&sheet, &credit_line(&state2), state2.fonts.book(), paper, solution)
    })
    .await
    .map_err(|_| {
        ApiError::new(Code::UpstreamUnavailable, "the PDF writer failed")
            .status(axum::http::StatusCode::SERVICE_UNAVAILABLE)
    })?;
    match made {
        Ok(bytes) => Ok(file(bytes, "application/pdf", &format!("attachment; filename=\"{}\"", file_name(&p, "pdf")))),
        Err(PdfError::Puzzle(e)) => Err(format_error(e)),
        Err(PdfError::NoFont(ch)) => {
            tracing::error!(missing = ?state.fonts.missing(), "no font for {ch:?}");
            Err(ApiError::new(
                Code::UpstreamUnavailable,
                format!("this server has no font for {ch:?}; its operator can install them with `indexbuild fonts`"),
            )
            .status(axum::http::StatusCode::SERVICE_UNAVAILABLE))
        }
    }
}

fn render(state: &AppState, p: &Puzzle, format: &str, solution: bool) -> ApiResult<Response> {
    if format == "json" {
        return Ok(Json(puzzle_json(state, p)).into_response());
    }
    let sheet = p.sheet().ok_or_else(|| ApiError::validation("grid", "the stored grid no longer parses"))?;
    let credit = credit_line(state);
    let attachment = |ext: &str| format!("attachment; filename=\"{}\"", file_name(p, ext));
    Ok(match format {
        "puz" => {
            let notes = if p.writeup.is_empty() { credit } else { format!("{}\n\n{credit}", p.writeup) };
            let bytes = crossword_puzzle::puz::write(&sheet, &notes).map_err(format_error)?;
            file(bytes, "application/x-crossword", &attachment("puz"))
        }
        "ipuz" => {
            let doc = crossword_puzzle::ipuz::write(&sheet, &credit);
            file(doc.to_string(), "application/x-ipuz+json", &attachment("ipuz"))
        }
        "html" => {
            let page = crossword_puzzle::html::write(&sheet, &credit, solution).map_err(format_error)?;
            file(page, "text/html; charset=utf-8", &format!("inline; filename=\"{}\"", file_name(p, "html")))
        }
        "svg" => file(
            crossword_puzzle::svg::write(&sheet, solution),
            "image/svg+xml",
            &format!("inline; filename=\"{}\"", file_name(p, "svg")),
        ),
        _ => return Err(ApiError::validation("format", format!("unknown format {format}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_title_slugs() {
        let mut p: Puzzle = serde_json::from_value(serde_json::json!({
            "id": "abcd1234", "owner": "acct_x", "title": "Monday's  Mini: #1!", "author": "", "language": "en",
            "grid": ["CAT", "ODE", "WET"], "clues": {}, "theme_words": [], "status": "draft",
            "showcase_status": null, "adult_themes": false, "difficulty": null, "writeup": "",
            "show_profile": false, "no_index": true, "created_at": 0, "updated_at": 0, "version": 1
        }))
        .unwrap();
        assert_eq!(file_name(&p, "puz"), "monday-s-mini-1.puz");
        p.title = "Кроссворд".into();
        assert_eq!(file_name(&p, "puz"), "puzzle-abcd1234.puz");
    }
}
