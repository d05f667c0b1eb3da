//! Grids: parsing and validation, slots, and clue numbering.
//!
//! A grid is a list of rows, top first; `.` is an empty white cell, `#` a block, anything else a
//! fixed letter (counted as one user-perceived character, normalized for the language: `a` is
//! `A`, a Hindi akshara may be several code points). Rows are logical left-to-right even for
//! right-to-left languages.
//!
//! **Slots** are runs of white cells of at least the language's `minSlotLength`, across and down.
//! A shorter run (a two-cell run in English, a lone cell) is not an answer: its cells are filled
//! only through the slot that crosses them, and a white cell that belongs to no slot at all is
//! left as given. Clue numbers follow the usual rule: scanning rows top to bottom and cells left to
//! right, each cell that starts a slot gets the next number.
//!
//! Chinese, Japanese and Korean puzzles are criss-cross: a grid with a 2x2 square of white cells
//! is dense and refused for them.

use unicode_segmentation::UnicodeSegmentation;

use crossword_lang::{CellKind, Language};

/// Smallest grid side.
pub const MIN_SIZE: usize = 3;
/// Largest grid side (an entry is at most `crossword_index::format::MAX_LEN` cells).
pub const MAX_SIZE: usize = crossword_index::format::MAX_LEN;

/// One grid square.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Square {
    /// A black cell.
    Block,
    /// An empty white cell the solver may fill.
    Empty,
    /// A letter (one cell of the language, normalized).
    Letter(String),
}

impl Square {
    /// True for white cells (empty or lettered).
    pub fn is_white(&self) -> bool {
        !matches!(self, Square::Block)
    }
}

/// Across or down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Left to right.
    Across,
    /// Top to bottom.
    Down,
}

impl Direction {
    /// `across` or `down`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Across => "across",
            Direction::Down => "down",
        }
    }
}

/// An answer's place in the grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Across or down.
    pub direction: Direction,
    /// Row of the first cell (zero-based).
    pub row: usize,
    /// Column of the first cell (zero-based).
    pub col: usize,
    /// Number of cells.
    pub len: usize,
    /// Clue number printed in the first cell.
    pub number: u32,
    /// Indices (`row * size + col`) of its cells, in reading order.
    pub cells: Vec<usize>,
}

/// Why a grid was refused: the message, and the zero-based row and column of the first bad cell
/// when there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct GridError {
    /// Human-readable reason, naming the row and column.
    pub message: String,
    /// Zero-based row of the first bad cell.
    pub row: Option<usize>,
    /// Zero-based column of the first bad cell.
    pub col: Option<usize>,
}

fn at(row: usize, col: usize, message: String) -> GridError {
    GridError { message: format!("row {row}, column {col}: {message}"), row: Some(row), col: Some(col) }
}

/// A validated square grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    size: usize,
    squares: Vec<Square>,
}

/// Splits a grid row into user-perceived characters (aksharas for Hindi).
fn row_cells(language: Language, row: &str) -> Vec<String> {
    let clusters: Vec<&str> = row.graphemes(true).collect();
    if language.spec().cell != CellKind::Akshara {
        return clusters.into_iter().map(str::to_owned).collect();
    }
    // Join `.`/`#`-free runs through the language's own splitter so conjuncts stay one cell.
    let mut out = Vec::new();
    let mut run = String::new();
    for c in clusters {
        if c == "." || c == "#" {
            if !run.is_empty() {
                out.extend(language.split_cells(&run).into_iter().map(str::to_owned));
                run.clear();
            }
            out.push(c.to_owned());
        } else {
            run.push_str(c);
        }
    }
    if !run.is_empty() {
        out.extend(language.split_cells(&run).into_iter().map(str::to_owned));
    }
    out
}

impl Grid {
    /// Parses and validates rows for `language`.
    pub fn parse<S: AsRef<str>>(language: Language, rows: &[S]) -> Result<Grid, GridError> {
        let size = rows.len();
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(GridError {
                message: format!("the grid must have {MIN_SIZE} to {MAX_SIZE} rows; it has {size}"),
                row: None,
                col: None,
            });
        }
        let mut squares = Vec::with_capacity(size * size);
        for (r, row) in rows.iter().enumerate() {
            let cells = row_cells(language, row.as_ref());
            if cells.len() != size {
                let col = cells.len().min(size);
                return Err(at(
                    r,
                    col,
                    format!("the row has {} cells; every row must have {size}, one per row of the grid", cells.len()),
                ));
            }
            for (c, cell) in cells.iter().enumerate() {
                squares.push(match cell.as_str() {
                    "." => Square::Empty,
                    "#" => Square::Block,
                    text => {
                        let normalized = language.normalize(text).map_err(|e| {
                            at(r, c, format!("{:?} is not a letter of language {}", e.ch, language.code()))
                        })?;
                        if language.split_cells(&normalized).len() != 1 {
                            return Err(at(
                                r,
                                c,
                                format!(
                                    "{text:?} does not fit one cell in language {} (it is written {normalized:?})",
                                    language.code()
                                ),
                            ));
                        }
                        Square::Letter(normalized)
                    }
                });
            }
        }
        let grid = Grid { size, squares };
        if language.spec().criss_cross_only {
            for r in 0..size - 1 {
                for c in 0..size - 1 {
                    if [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
                        .iter()
                        .all(|&(y, x)| grid.square(y, x).is_white())
                    {
                        return Err(at(r, c, format!("language {} needs a criss-cross grid, but the 2x2 square starting here has no block (dense grids cannot be filled in Chinese, Japanese or Korean)", language.code())));
                    }
                }
            }
        }
        Ok(grid)
    }

    /// Side length.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The square at a position.
    pub fn square(&self, row: usize, col: usize) -> &Square {
        &self.squares[row * self.size + col]
    }

    /// All squares, row-major.
    pub fn squares(&self) -> &[Square] {
        &self.squares
    }

    /// Replaces a square (row-major index).
    pub fn set(&mut self, index: usize, square: Square) {
        self.squares[index] = square;
    }

    /// The rows as text (`.`, `#`, letters).
    pub fn to_rows(&self) -> Vec<String> {
        self.squares
            .chunks(self.size)
            .map(|row| {
                row.iter()
                    .map(|s| match s {
                        Square::Block => "#",
                        Square::Empty => ".",
                        Square::Letter(l) => l.as_str(),
                    })
                    .collect()
            })
            .collect()
    }

    /// The slots (runs of at least `min_len` white cells), numbered, across before down for the
    /// same number.
    pub fn slots(&self, min_len: usize) -> Vec<Slot> {
        let n = self.size;
        let white = |r: usize, c: usize| self.square(r, c).is_white();
        let mut slots = Vec::new();
        let mut number = 0;
        for r in 0..n {
            for c in 0..n {
                if !white(r, c) {
                    continue;
                }
                let across_len =
                    if c == 0 || !white(r, c - 1) { (c..n).take_while(|&x| white(r, x)).count() } else { 0 };
                let down_len = if r == 0 || !white(r - 1, c) { (r..n).take_while(|&y| white(y, c)).count() } else { 0 };
                let starts_across = across_len >= min_len;
                let starts_down = down_len >= min_len;
                if !(starts_across || starts_down) {
                    continue;
                }
                number += 1;
                if starts_across {
                    slots.push(Slot {
                        direction: Direction::Across,
                        row: r,
                        col: c,
                        len: across_len,
                        number,
                        cells: (c..c + across_len).map(|x| r * n + x).collect(),
                    });
                }
                if starts_down {
                    slots.push(Slot {
                        direction: Direction::Down,
                        row: r,
                        col: c,
                        len: down_len,
                        number,
                        cells: (r..r + down_len).map(|y| y * n + c).collect(),
                    });
                }
            }
        }
        slots
    }

    /// The text of a slot (`None` while any of its cells is empty).
    pub fn slot_text(&self, slot: &Slot) -> Option<String> {
        slot.cells
            .iter()
            .map(|&i| match &self.squares[i] {
                Square::Letter(l) => Some(l.as_str()),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(code: &str) -> Language {
        Language::from_code(code).unwrap()
    }

    #[test]
    fn numbering_follows_the_usual_rule() {
        let g = Grid::parse(lang("en"), &["c..#", "....", "....", "#..."]).unwrap();
        let slots = g.slots(3);
        let summary: Vec<(u32, &str, usize, usize, usize)> =
            slots.iter().map(|s| (s.number, s.direction.as_str(), s.row, s.col, s.len)).collect();
        assert_eq!(
            summary,
            [
                (1, "across", 0, 0, 3),
                (1, "down", 0, 0, 3),
                (2, "down", 0, 1, 4),
                (3, "down", 0, 2, 4),
                (4, "across", 1, 0, 4),
                (5, "down", 1, 3, 3),
                (6, "across", 2, 0, 4),
                (7, "across", 3, 1, 3),
            ]
        );
        assert_eq!(g.square(0, 0), &Square::Letter("C".into()));
        assert_eq!(g.to_rows()[0], "C..#");
    }

    #[test]
    fn errors_name_row_and_column() {
        let e = Grid::parse(lang("en"), &["...", "..3", "..."]).unwrap_err();
        assert_eq!((e.row, e.col), (Some(1), Some(2)));
        assert!(e.message.starts_with("row 1, column 2"), "{}", e.message);
        let e = Grid::parse(lang("en"), &["...", "....", "..."]).unwrap_err();
        assert_eq!(e.row, Some(1));
        let e = Grid::parse(lang("en"), &["..", ".."]).unwrap_err();
        assert_eq!(e.row, None);
        let e = Grid::parse(lang("ru"), &["...", ".a.", "..."]).unwrap_err();
        assert_eq!((e.row, e.col), (Some(1), Some(1)));
        let e = Grid::parse(lang("de"), &["...", ".ß.", "..."]).unwrap_err();
        assert!(e.message.contains("one cell"), "{}", e.message);
    }

    #[test]
    fn other_scripts_count_cells_per_language() {
        let g = Grid::parse(lang("hi"), &["क्ष..", "...", "..."]).unwrap();
        assert_eq!(g.square(0, 0), &Square::Letter("क्ष".into()));
        let g = Grid::parse(lang("ja"), &["さ.#", ".#.", "#.."]).unwrap();
        assert_eq!(g.square(0, 0), &Square::Letter("サ".into()));
        let g = Grid::parse(lang("he"), &["ש..", "...", "..."]).unwrap();
        assert_eq!(g.slots(3).len(), 6);
    }

    #[test]
    fn criss_cross_languages_refuse_dense_grids() {
        let e = Grid::parse(lang("ja"), &["...", "...", "..."]).unwrap_err();
        assert_eq!((e.row, e.col), (Some(0), Some(0)));
        assert!(e.message.contains("criss-cross"));
        assert!(Grid::parse(lang("zh"), &["..#", ".#.", "#.."]).is_ok());
        assert!(Grid::parse(lang("en"), &["...", "...", "..."]).is_ok());
    }
}
