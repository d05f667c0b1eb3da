//! ipuz 2 crosswords (<http://ipuz.org/>): the open JSON exchange format that Crosshare, Exet
//! and other tools read. The writer emits `version` `http://ipuz.org/v2`, `kind`
//! `http://ipuz.org/crossword#1`, `dimensions`, `puzzle` (the numbered layout: a number, `0` for
//! an unnumbered white cell, `#` for a block), `solution` (letters, `#`, `null` for an empty
//! cell), `clues` (`Across` and `Down` lists of `[number, text]`), title, author, notes and the
//! credit line in `origin`, and the language in the extension field
//! `org.crossword-service:language`. The reader accepts what other tools write: labelled clues
//! as arrays, objects or `"number text"` strings, cells as values or `{ "cell": ... }` objects,
//! and a custom `block` or `empty` marker.

use serde_json::{json, Map, Value};

use crossword_fill::{Direction, Grid, Square};
use crossword_lang::Language;

use crate::model::{entries, Clues};
use crate::puz::Imported;
use crate::{FormatError, Sheet};

/// The extension field holding our language code.
pub const LANGUAGE_FIELD: &str = "org.crossword-service:language";

/// Writes the ipuz document. Unfinished grids and missing clues are allowed (ipuz can hold a
/// draft): empty cells have a `null` solution and missing clues are left out.
pub fn write(sheet: &Sheet<'_>, origin: &str) -> Value {
    let grid = &sheet.grid;
    let n = grid.size();
    let entries = entries(sheet.language, grid);
    let mut numbers = vec![0u32; n * n];
    for e in &entries {
        numbers[e.cells[0]] = e.number;
    }
    let puzzle: Vec<Vec<Value>> = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| match grid.square(r, c) {
                    Square::Block => json!("#"),
                    _ => json!(numbers[r * n + c]),
                })
                .collect()
        })
        .collect();
    let solution: Vec<Vec<Value>> = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| match grid.square(r, c) {
                    Square::Block => json!("#"),
                    Square::Empty => Value::Null,
                    Square::Letter(l) => json!(l),
                })
                .collect()
        })
        .collect();
    let list = |direction: Direction| -> Vec<Value> {
        entries
            .iter()
            .filter(|e| e.direction == direction)
            .filter_map(|e| sheet.clues.text(direction, e.number).map(|t| json!([e.number, t])))
            .collect()
    };
    let mut doc = json!({
        "version": "http://ipuz.org/v2",
        "kind": ["http://ipuz.org/crossword#1"],
        "dimensions": { "width": n, "height": n },
        "title": sheet.title,
        "author": sheet.author,
        "origin": origin,
        "block": "#",
        "empty": 0,
        "puzzle": puzzle,
        "solution": solution,
        "clues": { "Across": list(Direction::Across), "Down": list(Direction::Down) },
        LANGUAGE_FIELD: sheet.language.code(),
    });
    if !sheet.writeup.is_empty() {
        doc["notes"] = sheet.writeup.into();
    }
    doc
}

fn bad(message: impl Into<String>) -> FormatError {
    FormatError::new("body", message)
}

/// The language an ipuz document names in our extension field, if any.
pub fn language_of(doc: &Value) -> Option<Language> {
    doc.get(LANGUAGE_FIELD).and_then(Value::as_str).and_then(Language::from_code)
}

/// Reads an ipuz crossword for `language`.
pub fn read(bytes: &[u8], language: Language) -> Result<Imported, FormatError> {
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| bad(format!("not an ipuz file: invalid JSON ({e})")))?;
    let doc = doc.as_object().ok_or_else(|| bad("not an ipuz file: the document is not a JSON object"))?;
    let version = doc.get("version").and_then(Value::as_str).unwrap_or("");
    if !version.starts_with("http://ipuz.org/v") {
        return Err(bad("not an ipuz file: `version` must be http://ipuz.org/v1 or v2"));
    }
    let kinds = doc.get("kind").and_then(Value::as_array).cloned().unwrap_or_default();
    if !kinds.iter().filter_map(Value::as_str).any(|k| k.starts_with("http://ipuz.org/crossword")) {
        return Err(bad("the ipuz file is not a crossword (`kind` lacks http://ipuz.org/crossword)"));
    }
    let dims = doc.get("dimensions").ok_or_else(|| bad("the ipuz file has no `dimensions`"))?;
    let width = dims.get("width").and_then(Value::as_u64).unwrap_or(0) as usize;
    let height = dims.get("height").and_then(Value::as_u64).unwrap_or(0) as usize;
    if width != height || !(crossword_fill::grid::MIN_SIZE..=crossword_fill::grid::MAX_SIZE).contains(&width) {
        return Err(bad(format!(
            "the ipuz grid is {width}x{height}; grids must be square, {} to {} cells wide",
            crossword_fill::grid::MIN_SIZE,
            crossword_fill::grid::MAX_SIZE
        )));
    }
    let block = doc.get("block").and_then(Value::as_str).unwrap_or("#").to_owned();
    let empty = doc.get("empty").cloned().unwrap_or(json!(0));
    let layout = rows_of(doc, "puzzle", width)?;
    let solution = match doc.get("solution") {
        Some(Value::Array(_)) => Some(rows_of(doc, "solution", width)?),
        _ => None,
    };
    let mut rows = Vec::with_capacity(width);
    for r in 0..width {
        let mut row = String::new();
        for c in 0..width {
            let cell = unwrap_cell(&layout[r][c]);
            let is_block = cell.as_str() == Some(block.as_str()) || cell.is_null();
            if is_block {
                row.push('#');
                continue;
            }
            let letter = solution.as_ref().map(|s| unwrap_cell(&s[r][c])).and_then(|v| v.as_str().map(str::to_owned));
            match letter {
                Some(l) if l != block && !l.trim().is_empty() && Value::String(l.clone()) != empty => {
                    let normalized = language.normalize(&l).map_err(|_| {
                        bad(format!("row {r}, column {c}: {l:?} is not a letter of language {}", language.code()))
                    })?;
                    if language.split_cells(&normalized).len() != 1 {
                        return Err(bad(format!("row {r}, column {c}: {l:?} does not fit one cell")));
                    }
                    row.push_str(&normalized);
                }
                _ => row.push('.'),
            }
        }
        rows.push(row);
    }
    let grid = Grid::parse(language, &rows).map_err(|e| bad(e.message))?;
    // Their numbers, by cell, to find which of our entries each clue belongs to.
    let mut their_numbers = std::collections::HashMap::new();
    for (r, row) in layout.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if let Some(n) = number_of(unwrap_cell(cell)) {
                their_numbers.insert(n, (r, c));
            }
        }
    }
    let ours = entries(language, &grid);
    let mut clues = Clues::default();
    let lists = doc.get("clues").and_then(Value::as_object).cloned().unwrap_or_default();
    for (name, list) in &lists {
        let direction = match name.split(':').next().unwrap_or("") {
            "Across" => Direction::Across,
            "Down" => Direction::Down,
            _ => continue,
        };
        for item in list.as_array().into_iter().flatten() {
            let Some((number, text)) = clue_of(item) else { continue };
            let Some(&(r, c)) = their_numbers.get(&number) else { continue };
            if let Some(e) = ours.iter().find(|e| e.row == r && e.col == c && e.direction == direction) {
                clues.of_mut(direction).insert(e.number, text);
            }
        }
    }
    let text = |field: &str| doc.get(field).and_then(Value::as_str).unwrap_or("").to_owned();
    Ok(Imported { title: text("title"), author: text("author"), grid: rows, clues, notes: text("notes") })
}

fn rows_of<'d>(doc: &'d Map<String, Value>, field: &str, n: usize) -> Result<Vec<&'d Vec<Value>>, FormatError> {
    let rows =
        doc.get(field).and_then(Value::as_array).ok_or_else(|| bad(format!("the ipuz file has no `{field}` grid")))?;
    if rows.len() != n {
        return Err(bad(format!("the ipuz `{field}` has {} rows; `dimensions` says {n}", rows.len())));
    }
    rows.iter()
        .enumerate()
        .map(|(r, row)| match row.as_array() {
            Some(cells) if cells.len() == n => Ok(cells),
            _ => Err(bad(format!("row {r} of the ipuz `{field}` does not have {n} cells"))),
        })
        .collect()
}

/// A cell's value: `{ "cell": v }` or `{ "value": v }` objects are unwrapped.
fn unwrap_cell(cell: &Value) -> &Value {
    match cell {
        Value::Object(o) => o.get("cell").or_else(|| o.get("value")).unwrap_or(&Value::Null),
        v => v,
    }
}

fn number_of(cell: &Value) -> Option<u64> {
    match cell {
        Value::Number(n) => n.as_u64().filter(|&n| n > 0),
        Value::String(s) => s.parse().ok().filter(|&n| n > 0),
        _ => None,
    }
}

/// A clue as ipuz writes it: `[number, text]`, `{ "number", "clue" }` or `"number text"`.
fn clue_of(item: &Value) -> Option<(u64, String)> {
    match item {
        Value::Array(a) => Some((number_of(a.first()?)?, a.get(1)?.as_str()?.to_owned())),
        Value::Object(o) => Some((number_of(o.get("number")?)?, o.get("clue")?.as_str()?.to_owned())),
        Value::String(s) => {
            let (n, text) = s.split_once(' ')?;
            Some((n.parse().ok()?, text.to_owned()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drafts_round_trip() {
        let en = Language::english();
        let grid = Grid::parse(en, &["CAT", "A.E", "BEE"]).unwrap();
        let mut clues = Clues::default();
        clues.across.insert(1, "Pet".into());
        clues.down.insert(1, "Taxi".into());
        let sheet = Sheet { language: en, title: "T", author: "A", grid, clues: &clues, writeup: "Note" };
        let doc = write(&sheet, "credit");
        assert_eq!(doc["puzzle"][0][0], 1);
        assert_eq!(doc["puzzle"][1][1], 0);
        assert_eq!(doc["solution"][1][1], Value::Null);
        assert_eq!(doc["clues"]["Across"][0], json!([1, "Pet"]));
        assert_eq!(language_of(&doc), Some(en));
        let back = read(doc.to_string().as_bytes(), en).unwrap();
        assert_eq!(back.grid, ["CAT", "A.E", "BEE"]);
        assert_eq!(back.clues, clues);
        assert_eq!(back.notes, "Note");
    }

    #[test]
    fn other_tools_shapes_are_read() {
        let doc = json!({
            "version": "http://ipuz.org/v2", "kind": ["http://ipuz.org/crossword#1"],
            "dimensions": { "width": 3, "height": 3 }, "block": "#",
            "puzzle": [[{ "cell": 1 }, 2, 3], [4, 0, 0], [5, 0, 0]],
            "solution": [["c", "a", "t"], ["o", "d", "e"], [{ "value": "w" }, "e", "t"]],
            "clues": { "Across": ["1 Pet", { "number": 4, "clue": "Poem" }], "Down": [[3, "Dined"]] }
        });
        let back = read(doc.to_string().as_bytes(), Language::english()).unwrap();
        assert_eq!(back.grid, ["CAT", "ODE", "WET"]);
        assert_eq!(back.clues.across.get(&1).map(String::as_str), Some("Pet"));
        assert_eq!(back.clues.across.get(&4).map(String::as_str), Some("Poem"));
        assert_eq!(back.clues.down.get(&3).map(String::as_str), Some("Dined"));
        for bad in [
            json!([]),
            json!({ "version": "x" }),
            json!({ "version": "http://ipuz.org/v2", "kind": ["http://ipuz.org/sudoku#1"] }),
        ] {
            assert!(read(bad.to_string().as_bytes(), Language::english()).is_err());
        }
    }
}
