//! Across Lite `.puz` files, version 1.3: the writer and a reader for imports.
//!
//! The layout, byte by byte (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0x00 | 2 | file checksum (see below) |
//! | 0x02 | 12 | magic `ACROSS&DOWN\0` |
//! | 0x0E | 2 | CIB checksum: the checksum of the 8 bytes at 0x2C |
//! | 0x10 | 4 | masked low checksums: `I C H E` xor the low bytes of CIB, solution, grid, text |
//! | 0x14 | 4 | masked high checksums: `A T E D` xor their high bytes |
//! | 0x18 | 4 | version `1.3\0` |
//! | 0x1C | 2 | reserved (0) |
//! | 0x1E | 2 | scrambled checksum (0: not scrambled) |
//! | 0x20 | 12 | reserved (0) |
//! | 0x2C | 1 | width |
//! | 0x2D | 1 | height |
//! | 0x2E | 2 | number of clues |
//! | 0x30 | 2 | puzzle type (1: normal) |
//! | 0x32 | 2 | scrambled state (0: not scrambled) |
//! | 0x34 | w*h | solution, row by row: a letter, or `.` for a block |
//! | ... | w*h | player state: `-` for a white cell, `.` for a block |
//! | ... | | title, author, copyright, each clue, notes: ISO-8859-1, each ended by `\0` |
//!
//! Clues are in Across Lite order: by start cell in reading order, across before down, where
//! every run of two or more white cells is an entry. Our numbering skips runs shorter than the
//! language's `minSlotLength`; such a run gets a placeholder clue here.
//!
//! The checksum of a region starts from a seed and, for each byte, rotates the 16-bit value
//! right by one and adds the byte. The file checksum seeds with the CIB checksum and runs over
//! the solution, the player state, then the non-empty title, author and copyright (each with its
//! `\0`), every clue (without it) and the non-empty notes (with it). The text checksum used in
//! the masked pair is the same text run seeded with 0.

use crossword_fill::{Direction, Grid, Square};
use crossword_lang::Language;

use crate::model::{entries, missing_clues, Clues, Entry};
use crate::{FormatError, Sheet};

const MAGIC: &[u8; 12] = b"ACROSS&DOWN\0";
const HEADER_LEN: usize = 0x34;
/// The clue printed for a run the language does not count as an answer.
pub const SHORT_RUN_CLUE: &str = "-";

/// The checksum of `data`, seeded with `seed`.
pub fn checksum(data: &[u8], seed: u16) -> u16 {
    data.iter().fold(seed, |c, &b| c.rotate_right(1).wrapping_add(u16::from(b)))
}

fn latin1(text: &str, field: &str) -> Result<Vec<u8>, FormatError> {
    text.chars()
        .map(|ch| match u32::from(ch) {
            0 => Err(FormatError::new(
                field,
                format!("`{field}` contains a NUL character, which a .puz file cannot hold"),
            )),
            c @ 1..=0xFF => Ok(c as u8),
            _ => Err(FormatError::new(
                field,
                format!("`{field}` contains {ch:?}, which ISO-8859-1 (the .puz text encoding) cannot hold"),
            )),
        })
        .collect()
}

/// One Across Lite entry: a run of two or more white cells.
struct Run {
    row: usize,
    col: usize,
    direction: Direction,
}

/// Every run of two or more white cells, in Across Lite clue order.
fn runs(grid: &Grid) -> Vec<Run> {
    let n = grid.size();
    let white = |r: usize, c: usize| grid.square(r, c).is_white();
    let mut out = Vec::new();
    for r in 0..n {
        for c in 0..n {
            if !white(r, c) {
                continue;
            }
            if (c == 0 || !white(r, c - 1)) && c + 1 < n && white(r, c + 1) {
                out.push(Run { row: r, col: c, direction: Direction::Across });
            }
            if (r == 0 || !white(r - 1, c)) && r + 1 < n && white(r + 1, c) {
                out.push(Run { row: r, col: c, direction: Direction::Down });
            }
        }
    }
    out
}

/// Writes a `.puz` file. `notes` goes in the notes field (the credit line and the writeup).
///
/// Refused (never a corrupt file): a language whose `puzExportable` is false, a grid with empty
/// cells, a cell that is not one ISO-8859-1 letter, text ISO-8859-1 cannot hold, and a finished
/// answer without a clue (`missing_clues` lists them).
pub fn write(sheet: &Sheet<'_>, notes: &str) -> Result<Vec<u8>, FormatError> {
    let language = sheet.language;
    if !language.spec().puz_exportable {
        return Err(FormatError::new(
            "format",
            format!(
                "puzzles in language {} cannot be exported as .puz (Across Lite cannot show its letters); use ipuz",
                language.code()
            ),
        ));
    }
    let grid = &sheet.grid;
    let n = grid.size();
    let mut solution = Vec::with_capacity(n * n);
    for (i, square) in grid.squares().iter().enumerate() {
        let (r, c) = (i / n, i % n);
        solution.push(match square {
            Square::Block => b'.',
            Square::Empty => {
                return Err(FormatError::new(
                    "grid",
                    format!("row {r}, column {c} is empty; a .puz file needs a complete grid"),
                ))
            }
            Square::Letter(l) => {
                let mut chars = l.chars();
                match (chars.next(), chars.next()) {
                    (Some(ch), None) if (0x21..=0xFF).contains(&u32::from(ch)) && ch != '.' && ch != '-' => {
                        u32::from(ch) as u8
                    }
                    _ => {
                        return Err(FormatError::new(
                            "grid",
                            format!("row {r}, column {c} holds {l:?}, which is not one ISO-8859-1 letter as a .puz cell must be"),
                        ))
                    }
                }
            }
        });
    }
    let ours = entries(language, grid);
    let missing = missing_clues(&ours, sheet.clues);
    if !missing.is_empty() {
        let mut e = FormatError::new(
            "clues",
            format!("every answer needs a clue in a .puz file; missing: {}", missing.join(", ")),
        );
        e.missing_clues = missing;
        return Err(e);
    }
    let mut clue_texts: Vec<Vec<u8>> = Vec::new();
    for run in runs(grid) {
        let entry = ours.iter().find(|e| e.row == run.row && e.col == run.col && e.direction == run.direction);
        let bytes = match entry {
            Some(e) => {
                let text = sheet.clues.text(e.direction, e.number).unwrap_or(SHORT_RUN_CLUE);
                latin1(text, &format!("clues.{}.{}", e.direction.as_str(), e.number))?
            }
            None => SHORT_RUN_CLUE.as_bytes().to_vec(),
        };
        clue_texts.push(bytes);
    }
    let title = latin1(sheet.title, "title")?;
    let author = latin1(sheet.author, "author")?;
    let notes = latin1(notes, "writeup")?;
    let copyright: Vec<u8> = Vec::new();
    let clue_count = u16::try_from(clue_texts.len()).map_err(|_| FormatError::new("grid", "too many entries"))?;

    let mut cib = Vec::with_capacity(8);
    cib.push(n as u8);
    cib.push(n as u8);
    cib.extend_from_slice(&clue_count.to_le_bytes());
    cib.extend_from_slice(&1u16.to_le_bytes());
    cib.extend_from_slice(&0u16.to_le_bytes());
    let player: Vec<u8> = solution.iter().map(|&b| if b == b'.' { b'.' } else { b'-' }).collect();

    let text_sum = |seed: u16| {
        let mut c = seed;
        for s in [&title, &author, &copyright] {
            if !s.is_empty() {
                c = checksum(s, c);
                c = checksum(&[0], c);
            }
        }
        for clue in &clue_texts {
            c = checksum(clue, c);
        }
        if !notes.is_empty() {
            c = checksum(&notes, c);
            c = checksum(&[0], c);
        }
        c
    };
    let c_cib = checksum(&cib, 0);
    let c_solution = checksum(&solution, 0);
    let c_player = checksum(&player, 0);
    let c_text = text_sum(0);
    let file_sum = text_sum(checksum(&player, checksum(&solution, c_cib)));

    let mut out = Vec::with_capacity(HEADER_LEN + 2 * n * n + 1024);
    out.extend_from_slice(&file_sum.to_le_bytes());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&c_cib.to_le_bytes());
    let sums = [c_cib, c_solution, c_player, c_text];
    for (i, key) in b"ICHE".iter().enumerate() {
        out.push(key ^ (sums[i] & 0xFF) as u8);
    }
    for (i, key) in b"ATED".iter().enumerate() {
        out.push(key ^ (sums[i] >> 8) as u8);
    }
    out.extend_from_slice(b"1.3\0");
    out.extend_from_slice(&[0; 2]);
    out.extend_from_slice(&[0; 2]);
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&cib);
    debug_assert_eq!(out.len(), HEADER_LEN);
    out.extend_from_slice(&solution);
    out.extend_from_slice(&player);
    for s in [&title, &author, &copyright] {
        out.extend_from_slice(s);
        out.push(0);
    }
    for clue in &clue_texts {
        out.extend_from_slice(clue);
        out.push(0);
    }
    out.extend_from_slice(&notes);
    out.push(0);
    Ok(out)
}

/// A puzzle read from a file: rows in the language's normalized form, clues by our numbering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// Title.
    pub title: String,
    /// Author.
    pub author: String,
    /// Rows.
    pub grid: Vec<String>,
    /// Clues by printed number.
    pub clues: Clues,
    /// The file's notes.
    pub notes: String,
}

fn corrupt(message: impl Into<String>) -> FormatError {
    FormatError::new("body", message)
}

/// True when `bytes` looks like a `.puz` file (its magic at offset 2).
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.get(2..14) == Some(MAGIC.as_slice())
}

/// Reads a `.puz` file for `language`. Checks the header and file checksums; refuses
/// scrambled (locked) puzzles, rebus squares, grids that are not square, and letters outside
/// the language.
pub fn read(bytes: &[u8], language: Language) -> Result<Imported, FormatError> {
    if !sniff(bytes) || bytes.len() < HEADER_LEN {
        return Err(corrupt("not an Across Lite .puz file (no ACROSS&DOWN header)"));
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let (width, height) = (usize::from(bytes[0x2C]), usize::from(bytes[0x2D]));
    let clue_count = usize::from(u16_at(0x2E));
    if checksum(&bytes[0x2C..HEADER_LEN], 0) != u16_at(0x0E) {
        return Err(corrupt("the .puz header checksum is wrong (damaged file)"));
    }
    if u16_at(0x32) != 0 {
        return Err(corrupt("the .puz file is scrambled (locked); unlock it in Across Lite first"));
    }
    if width != height || !(crossword_fill::grid::MIN_SIZE..=crossword_fill::grid::MAX_SIZE).contains(&width) {
        return Err(corrupt(format!(
            "the .puz grid is {width}x{height}; grids must be square, {} to {} cells wide",
            crossword_fill::grid::MIN_SIZE,
            crossword_fill::grid::MAX_SIZE
        )));
    }
    let cells = width * height;
    let Some(solution) = bytes.get(HEADER_LEN..HEADER_LEN + cells) else {
        return Err(corrupt("the .puz file ends inside its solution"));
    };
    let Some(player) = bytes.get(HEADER_LEN + cells..HEADER_LEN + 2 * cells) else {
        return Err(corrupt("the .puz file ends inside its player grid"));
    };
    let mut strings = bytes[HEADER_LEN + 2 * cells..].split(|&b| b == 0);
    let mut next = |what: &str| -> Result<String, FormatError> {
        strings
            .next()
            .map(|s| s.iter().map(|&b| char::from(b)).collect())
            .ok_or_else(|| corrupt(format!("the .puz file ends before its {what}")))
    };
    let title = next("title")?;
    let author = next("author")?;
    let copyright = next("copyright")?;
    let mut clue_texts = Vec::with_capacity(clue_count);
    for i in 0..clue_count {
        clue_texts.push(next(&format!("clue {}", i + 1))?);
    }
    let notes = next("notes").unwrap_or_default();
    // The file checksum over what was read.
    let mut c = checksum(player, checksum(solution, u16_at(0x0E)));
    for s in [&title, &author, &copyright] {
        if !s.is_empty() {
            c = checksum(&latin1_bytes(s), c);
            c = checksum(&[0], c);
        }
    }
    for clue in &clue_texts {
        c = checksum(&latin1_bytes(clue), c);
    }
    if !notes.is_empty() {
        c = checksum(&latin1_bytes(&notes), c);
        c = checksum(&[0], c);
    }
    if c != u16_at(0) {
        return Err(corrupt("the .puz file checksum is wrong (damaged file)"));
    }
    if let Some(section) =
        extra_section(bytes, HEADER_LEN + 2 * cells, &[&title, &author, &copyright], &clue_texts, &notes)
    {
        if section == *b"GRBS" {
            return Err(corrupt("rebus squares (several letters in one square) are not supported"));
        }
    }
    let mut rows = Vec::with_capacity(height);
    for r in 0..height {
        let mut row = String::new();
        for c in 0..width {
            match solution[r * width + c] {
                b'.' => row.push('#'),
                b'-' | b' ' => row.push('.'),
                b if b.is_ascii_graphic() || b >= 0xC0 => {
                    let text = char::from(b).to_string();
                    let normalized = language.normalize(&text).map_err(|_| {
                        corrupt(format!(
                            "row {r}, column {c}: {text:?} is not a letter of language {}",
                            language.code()
                        ))
                    })?;
                    row.push_str(&normalized);
                }
                b => return Err(corrupt(format!("row {r}, column {c}: byte 0x{b:02X} is not a letter"))),
            }
        }
        rows.push(row);
    }
    let grid = Grid::parse(language, &rows).map_err(|e| corrupt(e.message))?;
    let runs = runs(&grid);
    if runs.len() != clue_count {
        return Err(corrupt(format!("the .puz file has {clue_count} clues for {} entries", runs.len())));
    }
    let ours = entries(language, &grid);
    let mut clues = Clues::default();
    for (run, text) in runs.iter().zip(clue_texts) {
        if let Some(e) = find_entry(&ours, run.row, run.col, run.direction) {
            clues.of_mut(e.direction).insert(e.number, text);
        }
    }
    Ok(Imported { title, author, grid: rows, clues, notes })
}

fn find_entry(entries: &[Entry], row: usize, col: usize, direction: Direction) -> Option<&Entry> {
    entries.iter().find(|e| e.row == row && e.col == col && e.direction == direction)
}

fn latin1_bytes(s: &str) -> Vec<u8> {
    s.chars().map(|c| u32::from(c) as u8).collect()
}

/// The name of the first extra section after the strings, if any.
fn extra_section(bytes: &[u8], start: usize, head: &[&String], clues: &[String], notes: &str) -> Option<[u8; 4]> {
    let text_len: usize = head.iter().map(|s| s.chars().count() + 1).sum::<usize>()
        + clues.iter().map(|c| c.chars().count() + 1).sum::<usize>();
    let after = start + text_len + notes.chars().count() + 1;
    bytes.get(after..after + 4).map(|s| [s[0], s[1], s[2], s[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet<'a>(code: &str, rows: &[&str], clues: &'a Clues) -> Sheet<'a> {
        let language = Language::from_code(code).unwrap();
        Sheet {
            language, title: "Tést", author: "Ann", grid: Grid::parse(language, rows).unwrap(), clues, writeup: ""
        }
    }

    fn clue_all(code: &str, rows: &[&str]) -> Clues {
        let language = Language::from_code(code).unwrap();
        let grid = Grid::parse(language, rows).unwrap();
        let mut clues = Clues::default();
        for e in entries(language, &grid) {
            clues.of_mut(e.direction).insert(e.number, format!("Clue {}", e.label()));
        }
        clues
    }

    #[test]
    fn the_checksum_rotates_and_adds() {
        assert_eq!(checksum(&[], 7), 7);
        assert_eq!(checksum(&[1], 0), 1);
        assert_eq!(checksum(&[1, 0], 0), 0x8000, "an odd value rotates its low bit to the top");
    }

    #[test]
    fn written_files_read_back_with_short_runs_and_accents() {
        // Two-cell runs (row 3 and column 3 pairs) are Across Lite entries but not ours.
        let rows = ["CAFÉ", "ALOE", "BEER", "##SO"];
        let clues = clue_all("fr", &rows);
        let bytes = write(&sheet("fr", &rows, &clues), "Credit line").unwrap();
        assert_eq!(&bytes[2..14], MAGIC);
        assert_eq!(&bytes[0x18..0x1C], b"1.3\0");
        let back = read(&bytes, Language::from_code("fr").unwrap()).unwrap();
        assert_eq!(back.grid, ["CAFE", "ALOE", "BEER", "##SO"]);
        assert_eq!(back.clues, clues);
        assert_eq!(back.title, "Tést");
        assert_eq!(back.notes, "Credit line");
        // The placeholder sits where Across Lite sees a two-cell run.
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains(&format!("\0{SHORT_RUN_CLUE}\0")), "short runs get the placeholder");
        // A flipped byte is caught.
        let mut damaged = bytes.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 1;
        assert!(read(&damaged, Language::from_code("fr").unwrap()).is_err());
    }

    #[test]
    fn what_a_puz_cannot_hold_is_refused() {
        let rows = ["CAT", "ODE", "WET"];
        let clues = clue_all("en", &rows);
        let mut s = sheet("en", &rows, &clues);
        s.title = "Crossword ✓";
        assert_eq!(write(&s, "").unwrap_err().field, "title");
        let partial = ["CA.", "ODE", "WET"];
        assert_eq!(write(&sheet("en", &partial, &clues), "").unwrap_err().field, "grid");
        let empty = Clues::default();
        let e = write(&sheet("en", &rows, &empty), "").unwrap_err();
        assert_eq!(e.missing_clues.len(), 6);
        let ru = ["ЛУНА", "....", "....", "...."];
        assert_eq!(write(&sheet("ru", &ru, &empty), "").unwrap_err().field, "format");
    }
}
