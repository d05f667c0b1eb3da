//! The numbered grid as SVG: white cells with their clue numbers (and, with the solution,
//! their letters), black blocks, and for criss-cross languages (zh, ja, ko) only the white
//! cells. Right-to-left languages are mirrored on display; the data stays left to right.

use std::fmt::Write;

use crossword_fill::Square;

use crate::model::entries;
use crate::Sheet;

/// Side of one cell in SVG user units.
pub const CELL: usize = 36;
const MARGIN: usize = 2;

/// Escapes text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The grid as a standalone SVG document; `solution` fills in the letters.
pub fn write(sheet: &Sheet<'_>, solution: bool) -> String {
    let grid = &sheet.grid;
    let n = grid.size();
    let spec = sheet.language.spec();
    let side = n * CELL + 2 * MARGIN;
    let mut numbers = vec![0u32; n * n];
    for e in entries(sheet.language, grid) {
        numbers[e.cells[0]] = e.number;
    }
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {side} {side}\" width=\"{side}\" height=\"{side}\" role=\"img\" aria-label=\"{}\">\n<title>{}</title>\n",
        escape(sheet.title),
        escape(sheet.title)
    );
    out.push_str("<style>.n{font:10px sans-serif;fill:#222}.l{font:20px sans-serif;fill:#000;text-anchor:middle;dominant-baseline:central}</style>\n");
    for r in 0..n {
        for c in 0..n {
            let shown_col = if spec.rtl { n - 1 - c } else { c };
            let (x, y) = (MARGIN + shown_col * CELL, MARGIN + r * CELL);
            match grid.square(r, c) {
                Square::Block => {
                    if !spec.criss_cross_only {
                        let _ = writeln!(
                            out,
                            "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"#000\"/>"
                        );
                    }
                }
                square => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"1\"/>"
                    );
                    let number = numbers[r * n + c];
                    if number > 0 {
                        let nx = if spec.rtl { x + CELL - 3 } else { x + 2 };
                        let anchor = if spec.rtl { " text-anchor=\"end\"" } else { "" };
                        let _ = writeln!(out, "<text class=\"n\" x=\"{nx}\" y=\"{}\"{anchor}>{number}</text>", y + 10);
                    }
                    if let (true, Square::Letter(l)) = (solution, square) {
                        let _ = writeln!(
                            out,
                            "<text class=\"l\" x=\"{}\" y=\"{}\">{}</text>",
                            x + CELL / 2,
                            y + CELL / 2 + 3,
                            escape(l)
                        );
                    }
                }
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Clues;
    use crossword_fill::Grid;
    use crossword_lang::Language;

    fn sheet<'a>(code: &str, rows: &[&str], clues: &'a Clues) -> Sheet<'a> {
        let language = Language::from_code(code).unwrap();
        Sheet { language, title: "A <b>", author: "", grid: Grid::parse(language, rows).unwrap(), clues, writeup: "" }
    }

    #[test]
    fn numbers_letters_and_mirroring() {
        let clues = Clues::default();
        let blank = write(&sheet("en", &["CAT", "O#E", "WET"], &clues), false);
        assert!(blank.contains(">1</text>") && blank.contains("fill=\"#000\""));
        assert!(!blank.contains(">C</text>"), "no letters without the solution");
        assert!(blank.contains("A &lt;b&gt;"), "the title is escaped");
        let solved = write(&sheet("en", &["CAT", "O#E", "WET"], &clues), true);
        assert!(solved.contains(">C</text>"));
        // Hebrew: the first logical column is drawn on the right.
        let he = write(&sheet("he", &["אבג", "ד#ה", "וזח"], &clues), true);
        let first = he.find(">א</text>").unwrap();
        let x: usize = he[..first].rsplit("x=\"").next().unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(x > 2 * CELL, "mirrored: x = {x}");
        // Criss-cross: blocks are not drawn.
        let ja = write(&sheet("ja", &["アイ#", "#ウ#", "##エ"], &clues), false);
        assert!(!ja.contains("fill=\"#000\""));
    }
}
