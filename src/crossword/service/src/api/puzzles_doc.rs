//! The puzzle operations' part of the OpenAPI document: the seven of the contract, the three
//! extensions (import and the version history) and their schemas, from the same constants the
//! handlers in [`super::puzzles`] and [`super::export`] read.

use serde_json::{json, Value};

use super::error::Code;
use super::export::{FORMATS, PAPERS};
use super::openapi::{
    add_headers, add_operation, add_schemas, language_schema, merge, problem, rate_headers, with_headers,
};
use super::puzzles::{
    AUTHOR_MAX, CLUE_MAX, IDEMPOTENCY_KEY_MAX, LIST_LIMIT, LIST_OFFSET, THEME_WORDS_MAX, THEME_WORD_MAX, TITLE_MAX,
    VERSION_NUMBER, WRITEUP_MAX,
};
use crate::puzzles::SHOWCASE_QUEUE_CAP;

fn id_param() -> Value {
    json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "pattern": "^[a-z0-9]{8}$" },
            "examples": { "id": { "value": "abcd1234" } } })
}

/// Links from a response holding a Puzzle to the operations on it (clients and stateful
/// testers follow them with the returned `id`).
fn puzzle_links() -> Value {
    let mut links = serde_json::Map::new();
    for (name, op) in [
        ("GetPuzzle", "getPuzzle"),
        ("UpdatePuzzle", "updatePuzzle"),
        ("PublishPuzzle", "publishPuzzle"),
        ("ExportPuzzle", "exportPuzzle"),
        ("ListPuzzleVersions", "listPuzzleVersions"),
        ("DeletePuzzle", "deletePuzzle"),
    ] {
        links.insert(name.into(), json!({ "operationId": op, "parameters": { "id": "$response.body#/id" } }));
    }
    Value::Object(links)
}

fn puzzle_ok(description: &str) -> Value {
    json!({
        "description": description,
        "headers": rate_headers(),
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Puzzle" } } }
    })
}

fn rate_limited() -> Value {
    with_headers(
        problem("The account's one-minute request window is full; nothing was consumed.", &[Code::RateLimited]),
        json!({
            "Retry-After": { "$ref": "#/components/headers/RetryAfter" },
            "X-RateLimit-Limit": { "$ref": "#/components/headers/RateLimitLimit" },
            "X-RateLimit-Remaining": { "$ref": "#/components/headers/RateLimitRemaining" }
        }),
    )
}

/// The failures every puzzle operation shares (`scope` names the scope it needs).
fn errors(scope: &str) -> Value {
    json!({
        "401": problem("Missing, malformed, unknown or revoked key.", &[Code::Unauthorized]),
        "403": problem(&format!("The key lacks the `{scope}` scope."), &[Code::ForbiddenScope]),
        "404": problem("No such puzzle, another account's draft, or (for writes) another account's puzzle.", &[Code::NotFound]),
        "429": rate_limited(),
        "503": problem("Storage is unavailable; nothing was written.", &[Code::UpstreamUnavailable])
    })
}

fn write_errors() -> Value {
    merge(
        errors("puzzles:write"),
        json!({
            "400": problem("Invalid input: `field` names it (`missingClues` lists finished answers without a clue when a published puzzle would lack them; for a grid `row` and `col` name the first bad cell), or an unknown language.", &[Code::ValidationError, Code::LanguageUnavailable]),
            "403": problem("The key lacks the `puzzles:write` scope, or the grid is larger than the plan allows.", &[Code::ForbiddenScope, Code::GridSizeLocked]),
            "413": problem("The body is larger than 1 MB (`field` is `body`).", &[Code::ValidationError])
        }),
    )
}

/// The puzzle operations and schemas.
pub fn document(doc: &mut Value) {
    let quota_header = json!({ "X-Puzzle-Quota-Remaining": { "$ref": "#/components/headers/PuzzleQuotaRemaining" } });
    let idempotency = json!({
        "name": "Idempotency-Key", "in": "header", "required": false,
        "description": "Unique per puzzle, per account; never expires. A repeat returns the first puzzle (200, `Idempotent-Replayed: true`), ignores the new body and consumes nothing, even when requests race.",
        "schema": { "type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX }
    });
    let created = json!({
        "201": {
            "description": "The stored puzzle; one monthly puzzle consumed. `Location` is its address.",
            "headers": merge(merge(rate_headers(), quota_header.clone()), json!({ "Location": { "schema": { "type": "string" } } })),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Puzzle" } } },
            "links": puzzle_links()
        },
        "200": {
            "description": "The `Idempotency-Key` was used before: the first puzzle; the body was ignored and nothing consumed.",
            "headers": merge(rate_headers(), json!({
                "Idempotent-Replayed": { "required": true, "schema": { "type": "string", "enum": ["true"] } },
                "X-Puzzle-Quota-Remaining": { "description": "Puzzles left this month (-1: no limit).", "schema": { "type": "integer" } }
            })),
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Puzzle" } } }
        }
    });
    let create_errors = merge(
        write_errors(),
        json!({
            "404": problem("The `Idempotency-Key` created a puzzle that was deleted since (keys never expire).", &[Code::NotFound]),
            "429": with_headers(problem("The request window is full, or the month's new puzzles are used up (`Retry-After`: seconds until the first of next month, UTC).", &[Code::RateLimited, Code::PuzzleQuotaReached]), json!({
                "Retry-After": { "$ref": "#/components/headers/RetryAfter" }
            }))
        }),
    );
    add_operation(
        doc,
        "/puzzles",
        "get",
        json!({
            "operationId": "listPuzzles", "summary": "List your puzzles",
            "description": "Scope `read`. The account's own drafts and published puzzles, newest edit first.",
            "parameters": [
                { "name": "status", "in": "query", "required": false, "schema": { "type": "string", "enum": ["draft", "published"] } },
                { "name": "limit", "in": "query", "required": false, "schema": LIST_LIMIT.schema() },
                { "name": "offset", "in": "query", "required": false, "schema": LIST_OFFSET.schema() }
            ],
            "responses": merge(json!({ "200": {
                "description": "A page of puzzles and how many there are in all.",
                "headers": rate_headers(),
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PuzzleList" } } }
            }, "400": problem("`status`, `limit` or `offset` is invalid (`field` names it).", &[Code::ValidationError]) }), errors("read"))
        }),
    );
    add_operation(
        doc,
        "/puzzles",
        "post",
        json!({
            "operationId": "createPuzzle", "summary": "Save a puzzle",
            "description": "Scope `puzzles:write`. Creates a draft, or with `publish: true` a published (unlisted) puzzle, which needs a clue for every finished answer (an answer whose cells all hold letters). The grid is validated like a fill's and may hold empty cells. `size` is derived from the grid: sending it is a 400. A clue is a string, or `{ \"text\", \"token\" }` for a clue from POST /clues/generate: when the puzzle is published, clues whose token verifies join the shared collection as `ai`, the others as `original`. `writeup` longer than 2000 characters is cut short. `noIndex` defaults to true (unlisted). Each new puzzle consumes one monthly puzzle; nothing is saved when the request fails.",
            "parameters": [idempotency.clone()],
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/PuzzleCreate" },
                "examples": { "mini": { "value": { "title": "Mini", "grid": ["CAT", "ODE", "WET"], "clues": { "across": { "1": "Pet" } } } } }
            } } },
            "responses": merge(created.clone(), create_errors.clone())
        }),
    );
    add_operation(
        doc,
        "/puzzles/import",
        "post",
        json!({
            "operationId": "importPuzzle", "summary": "Import a .puz or ipuz file (extension)",
            "description": "Scope `puzzles:write`. Creates a draft from an Across Lite `.puz` file or an ipuz crossword sent as the body (type from `Content-Type`, else sniffed). Metered and idempotent like POST /puzzles. `language` (default: the ipuz file's `org.crossword-service:language`, else `en`) says how to read the letters. Clue numbers are the grid's own; a clue longer than 150 characters is cut short. A file that cannot be read is a 400 (`field` `body`) saying what is wrong: damaged checksums, scrambled puzzles, rebus squares, grids that are not square, letters outside the language.",
            "parameters": [idempotency, { "name": "language", "in": "query", "required": false, "schema": language_schema() }],
            "requestBody": { "required": true, "content": {
                "application/x-crossword": { "schema": { "type": "string", "format": "binary" } },
                "application/x-ipuz+json": { "schema": { "type": "object" } },
                "application/json": { "schema": { "type": "object" } }
            } },
            "responses": merge(created, create_errors)
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}",
        "get",
        json!({
            "operationId": "getPuzzle", "summary": "Read a puzzle",
            "description": "Scope `read`. Your own puzzles and any published one; another account's draft is 404.",
            "parameters": [id_param()],
            "responses": merge(json!({ "200": puzzle_ok("The puzzle.") }), errors("read"))
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}",
        "patch",
        json!({
            "operationId": "updatePuzzle", "summary": "Edit a puzzle",
            "description": "Scope `puzzles:write`; your own puzzles only. Only the fields sent change; `clues`, when sent, replaces the whole clue set; a new grid without `clues` keeps the clues of the entries it still has. Read-only fields (`id`, `size`, `status`, `showcaseStatus`, `adultThemes`, `difficulty`, `createdAt`, `updatedAt`, `url`, `embedUrl`, `version`, `publish`) are refused with 400 naming the field, and a patch with none of the editable fields is a 400. The previous version is kept in the version history first (a patch that changes nothing writes nothing). Never metered. The plan's grid ceiling applies (GRID_SIZE_LOCKED). A published puzzle must keep a title and a clue for every finished answer; editing it re-runs the safety check, and editing its grid or clues makes a new difficulty rating (null until ready).",
            "parameters": [id_param()],
            "requestBody": { "required": true, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/PuzzlePatch" },
                "examples": { "title": { "value": { "title": "Better title" } } }
            } } },
            "responses": merge(json!({ "200": puzzle_ok("The edited puzzle.") }), write_errors())
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}",
        "delete",
        json!({
            "operationId": "deletePuzzle", "summary": "Delete a puzzle",
            "description": "Scope `puzzles:write`; your own puzzles only. Permanent, with its version history; its page then answers 410. Its `Idempotency-Key` stays used.",
            "parameters": [id_param()],
            "responses": merge(json!({ "204": { "description": "Deleted.", "headers": rate_headers() } }), errors("puzzles:write"))
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}/publish",
        "post",
        json!({
            "operationId": "publishPuzzle", "summary": "Publish a puzzle",
            "description": format!("Scope `puzzles:write`; your own puzzles only. Needs a title and a clue for every finished answer (else 400 with `missingClues`). Also takes `writeup`, `showProfile` and `noIndex`. Publishing again is allowed; publishing is never metered. `submitToShowcase: true` queues the puzzle for review (`showcaseStatus` `pending`) while fewer than {SHOWCASE_QUEUE_CAP} of the account's puzzles are queued, else 409 SHOWCASE_QUEUE_FULL and nothing is applied; a queued or approved puzzle stays as it is, a rejected one may be submitted again. An automatic pre-check then moves `pending` to `pre_approved`, or to `flagged` when a blocked word appears; a person finishes every review (`approved` or `rejected`, with `showcaseNote`). The rating (`difficulty`) is null until it is made, shortly after a first publish. The body may be empty."),
            "parameters": [id_param()],
            "requestBody": { "required": false, "content": { "application/json": {
                "schema": { "$ref": "#/components/schemas/PublishRequest" },
                "examples": { "showcase": { "value": { "submitToShowcase": false } } }
            } } },
            "responses": merge(merge(json!({ "200": puzzle_ok("The published puzzle with `url` and `embedUrl`.") }), write_errors()), json!({
                "409": problem("Three of the account's puzzles already await showcase review; nothing was applied.", &[Code::ShowcaseQueueFull])
            }))
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}/export",
        "get",
        json!({
            "operationId": "exportPuzzle", "summary": "Export a puzzle",
            "description": "Scope `read`; the puzzles you may read. `json` (default) is exactly the GET /puzzles/{id} object. `puz` is an Across Lite 1.3 file (ISO-8859-1, every checksum, the credit line in its notes) for languages whose `puzExportable` is true; it needs a complete grid, one Latin-1 letter per cell and a clue for every answer (400 `VALIDATION_ERROR` saying why otherwise, with `missingClues` when clues lack). `ipuz` is an ipuz 2 crossword (drafts too). `html` is one self-contained printable page for A4 and Letter (complete grid and every answer clued). `svg` is the numbered grid. `pdf` is one printable page (`paper` `letter` or `a4`; fonts embedded as subsets for every script, with each line's text for copying and search), with the same needs as `html`; `Content-Disposition: attachment` with the title's slug. `solution=true` fills in the letters (the answer key: html, pdf, svg). Unknown options are a 400 naming them. A 503 means the server lacks a font for the puzzle's script (its operator installs them with `indexbuild fonts`).",
            "parameters": [
                id_param(),
                { "name": "format", "in": "query", "required": false, "schema": { "type": "string", "enum": FORMATS, "default": "json" } },
                { "name": "paper", "in": "query", "required": false, "schema": { "type": "string", "enum": PAPERS, "default": "letter" } },
                { "name": "solution", "in": "query", "required": false, "schema": { "type": "boolean", "default": false } }
            ],
            "responses": merge(json!({
                "200": {
                    "description": "The file. Files carry `Content-Disposition` with a name made from the title.",
                    "headers": rate_headers(),
                    "content": {
                        "application/json": { "schema": { "$ref": "#/components/schemas/Puzzle" } },
                        "application/x-crossword": { "schema": { "type": "string", "format": "binary" } },
                        "application/x-ipuz+json": { "schema": { "type": "object" } },
                        "text/html": { "schema": { "type": "string" } },
                        "application/pdf": { "schema": { "type": "string", "format": "binary" } },
                        "image/svg+xml": { "schema": { "type": "string" } }
                    }
                },
                "400": problem("Unknown format or option, or the puzzle cannot be written in that format (`field` says why; `missingClues`).", &[Code::ValidationError])
            }), merge(errors("read"), json!({
                "503": problem("Storage is unavailable, or (PDF) the server lacks a font for the puzzle's script.", &[Code::UpstreamUnavailable])
            })))
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}/versions",
        "get",
        json!({
            "operationId": "listPuzzleVersions", "summary": "A puzzle's version history (extension)",
            "description": "Scope `read`; the owner's puzzles only (another account's, published or not, is 404: earlier versions may hold what was there before publication). Every kept version, oldest first, then the current one: its number, when it was saved, and what the edit that made it changed.",
            "parameters": [id_param()],
            "responses": merge(json!({ "200": {
                "description": "The versions.",
                "headers": rate_headers(),
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/VersionList" } } }
            } }), errors("read"))
        }),
    );
    add_operation(
        doc,
        "/puzzles/{id}/versions/{n}",
        "get",
        json!({
            "operationId": "getPuzzleVersion", "summary": "One version of a puzzle (extension)",
            "description": "Scope `read`; the owner's puzzles only, as for the version list. The puzzle as it was in version `n`.",
            "parameters": [id_param(), { "name": "n", "in": "path", "required": true, "schema": VERSION_NUMBER.schema(), "examples": { "first": { "value": "1" } } }],
            "responses": merge(json!({
                "200": puzzle_ok("The version."),
                "400": problem("`n` is not a version number.", &[Code::ValidationError])
            }), errors("read"))
        }),
    );
    add_headers(
        doc,
        json!({
            "PuzzleQuotaRemaining": { "required": true, "description": "New puzzles left this month after this one (-1: no limit).", "schema": { "type": "integer" } }
        }),
    );
    document_schemas(doc);
}

fn document_schemas(doc: &mut Value) {
    let clue = json!({ "oneOf": [
        { "type": "string", "maxLength": CLUE_MAX },
        { "type": "object", "required": ["text"], "properties": {
            "text": { "type": "string", "maxLength": CLUE_MAX },
            "token": { "type": "string", "description": "The proof token of a clue from POST /clues/generate." }
        } }
    ] });
    let clue_set_in =
        json!({ "type": "object", "propertyNames": { "pattern": "^[1-9][0-9]*$" }, "additionalProperties": clue });
    let clue_set_out = json!({ "type": "object", "additionalProperties": { "type": "string" } });
    let text = |max: usize| json!({ "type": "string", "maxLength": max });
    let theme_words = json!({ "type": "array", "maxItems": THEME_WORDS_MAX, "items": { "type": "string", "minLength": 1, "maxLength": THEME_WORD_MAX } });
    let writeup = json!({ "type": "string", "description": format!("Constructor's note; text past {WRITEUP_MAX} characters is cut short.") });
    add_schemas(
        doc,
        json!({
            "Puzzle": {
                "type": "object",
                "required": ["id", "title", "author", "language", "size", "grid", "clues", "themeWords", "status", "showcaseStatus", "adultThemes", "difficulty", "createdAt", "updatedAt"],
                "properties": {
                    "id": { "type": "string", "pattern": "^[a-z0-9]{8}$" },
                    "title": text(TITLE_MAX),
                    "author": text(AUTHOR_MAX),
                    "language": { "type": "string", "description": "Language code (`pt-BR` is stored as `pt`)." },
                    "size": { "type": "integer", "minimum": 3, "maximum": 23 },
                    "grid": { "type": "array", "items": { "type": "string" } },
                    "clues": { "type": "object", "required": ["across", "down"], "properties": { "across": clue_set_out.clone(), "down": clue_set_out } },
                    "themeWords": { "type": "array", "items": { "type": "string" } },
                    "status": { "type": "string", "enum": ["draft", "published"] },
                    "showcaseStatus": { "type": ["string", "null"], "enum": ["pending", "pre_approved", "flagged", "approved", "rejected", null] },
                    "showcaseNote": { "type": "string", "description": "Extension: the reviewer's reason, on a rejected submission." },
                    "adultThemes": { "type": "boolean" },
                    "difficulty": { "type": ["string", "null"], "enum": ["easy", "medium", "hard", "expert", null] },
                    "writeup": { "type": "string", "maxLength": WRITEUP_MAX },
                    "showProfile": { "type": "boolean" },
                    "noIndex": { "type": "boolean" },
                    "createdAt": { "type": "string", "format": "date-time" },
                    "updatedAt": { "type": "string", "format": "date-time" },
                    "url": { "type": "string", "format": "uri" },
                    "embedUrl": { "type": "string", "format": "uri" },
                    "version": { "type": "integer", "minimum": 1, "description": "Extension: the content version (each kept edit adds one)." }
                }
            },
            "PuzzleList": {
                "type": "object", "required": ["puzzles", "total"],
                "properties": { "puzzles": { "type": "array", "items": { "$ref": "#/components/schemas/Puzzle" } }, "total": { "type": "integer", "minimum": 0 } }
            },
            "PuzzleCreate": {
                "type": "object", "required": ["title", "grid"],
                "properties": {
                    "title": { "type": "string", "minLength": 1, "maxLength": TITLE_MAX },
                    "author": text(AUTHOR_MAX),
                    "language": language_schema(),
                    "grid": { "$ref": "#/components/schemas/Grid" },
                    "clues": { "type": "object", "properties": { "across": clue_set_in.clone(), "down": clue_set_in.clone() }, "additionalProperties": false },
                    "themeWords": theme_words.clone(),
                    "writeup": writeup.clone(),
                    "showProfile": { "type": "boolean", "default": false },
                    "noIndex": { "type": "boolean", "default": true },
                    "publish": { "type": "boolean", "default": false }
                }
            },
            "PuzzlePatch": {
                "type": "object",
                "description": "At least one editable field.",
                "properties": {
                    "title": text(TITLE_MAX),
                    "author": text(AUTHOR_MAX),
                    "language": language_schema(),
                    "grid": { "$ref": "#/components/schemas/Grid" },
                    "clues": { "type": "object", "properties": { "across": clue_set_in.clone(), "down": clue_set_in }, "additionalProperties": false },
                    "themeWords": theme_words,
                    "writeup": writeup.clone(),
                    "showProfile": { "type": "boolean" },
                    "noIndex": { "type": "boolean" }
                }
            },
            "PublishRequest": {
                "type": "object",
                "properties": {
                    "submitToShowcase": { "type": "boolean", "default": false },
                    "writeup": writeup,
                    "showProfile": { "type": "boolean" },
                    "noIndex": { "type": "boolean" }
                }
            },
            "VersionList": {
                "type": "object", "required": ["versions"],
                "properties": { "versions": { "type": "array", "items": {
                    "type": "object", "required": ["version", "savedAt", "changed", "current"],
                    "properties": {
                        "version": { "type": "integer", "minimum": 1 },
                        "savedAt": { "type": "string", "format": "date-time" },
                        "changed": { "type": "array", "items": { "type": "string" }, "description": "Fields the edit that made this version changed (`created` for version 1)." },
                        "current": { "type": "boolean" }
                    }
                } } }
            }
        }),
    );
}
