//! One self-contained printable page: the title, the author, the blank (or solved) grid as
//! inline SVG and both clue lists under headings in the puzzle's language, laid out to fit one
//! sheet of A4 or US Letter (the grid scales to the page width; the lists flow in columns). No
//! external requests: no fonts, scripts or images from elsewhere.

use std::fmt::Write;

use crossword_fill::Direction;

use crate::labels::labels;
use crate::model::{entries, missing_clues};
use crate::svg::escape;
use crate::{FormatError, Sheet};

/// The page. Needs a complete grid and a clue for every answer. `credit` is the powered-by
/// line the rules for use ask printed puzzles to carry.
pub fn write(sheet: &Sheet<'_>, credit: &str, solution: bool) -> Result<String, FormatError> {
    if let Some(i) = sheet.grid.squares().iter().position(|s| *s == crossword_fill::Square::Empty) {
        let n = sheet.grid.size();
        return Err(FormatError::new(
            "grid",
            format!("row {}, column {} is empty; a printable page needs a complete grid", i / n, i % n),
        ));
    }
    let all = entries(sheet.language, &sheet.grid);
    let missing = missing_clues(&all, sheet.clues);
    if !missing.is_empty() {
        let mut e =
            FormatError::new("clues", format!("every answer needs a clue to print; missing: {}", missing.join(", ")));
        e.missing_clues = missing;
        return Err(e);
    }
    let spec = sheet.language.spec();
    let heads = labels(sheet.language);
    let dir = if spec.rtl { "rtl" } else { "ltr" };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"{}\" dir=\"{dir}\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<header><h1>{}</h1>",
        sheet.language.code(),
        escape(sheet.title),
        escape(sheet.title)
    );
    if !sheet.author.is_empty() {
        let _ = write!(out, "<p class=\"author\">{}</p>", escape(sheet.author));
    }
    out.push_str("</header>\n<main>\n<div class=\"grid\">");
    // Inline SVG in HTML needs no namespace declaration.
    out.push_str(&crate::svg::write(sheet, solution).replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1));
    out.push_str("</div>\n<div class=\"clues\">\n");
    for (direction, head) in [(Direction::Across, heads.across), (Direction::Down, heads.down)] {
        let _ = write!(out, "<section><h2>{}</h2>\n<ol>\n", escape(head));
        for e in all.iter().filter(|e| e.direction == direction) {
            let text = sheet.clues.text(direction, e.number).unwrap_or("");
            let _ = writeln!(out, "<li value=\"{}\"><b>{}</b> {}</li>", e.number, e.number, escape(text));
        }
        out.push_str("</ol></section>\n");
    }
    out.push_str("</div>\n</main>\n");
    let _ = write!(out, "<footer>{}</footer>\n</body>\n</html>\n", escape(credit));
    Ok(out)
}

const CSS: &str = "@page { margin: 12mm; }
html { font: 10.5pt/1.3 serif; color: #000; background: #fff; }
body { margin: 0 auto; max-width: 190mm; }
h1 { font-size: 16pt; margin: 0 0 2pt; }
.author { margin: 0 0 6pt; font-style: italic; }
.grid svg { width: 100%; max-width: 120mm; height: auto; display: block; margin: 0 auto 8pt; }
.clues { column-count: 2; column-gap: 8mm; }
section { break-inside: avoid-column; }
h2 { font-size: 11pt; margin: 0 0 3pt; }
ol { list-style: none; margin: 0 0 8pt; padding: 0; }
li { margin: 0 0 2pt; break-inside: avoid; }
li b { display: inline-block; min-width: 2.2em; }
footer { margin-top: 6pt; font-size: 8pt; color: #444; }
@media print { body { max-width: none; } }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Clues;
    use crossword_fill::Grid;
    use crossword_lang::Language;

    #[test]
    fn a_page_in_the_puzzles_language() {
        let ru = Language::from_code("ru").unwrap();
        let grid = Grid::parse(ru, &["КОТ", "ОДА", "ТАК"]).unwrap();
        let mut clues = Clues::default();
        for e in entries(ru, &grid) {
            clues.of_mut(e.direction).insert(e.number, format!("Ключ {}", e.number));
        }
        let sheet = Sheet { language: ru, title: "Кот", author: "Аня", grid, clues: &clues, writeup: "" };
        let page = write(&sheet, "Made with the crossword service", false).unwrap();
        assert!(page.contains("<html lang=\"ru\" dir=\"ltr\">"));
        assert!(page.contains("По горизонтали") && page.contains("По вертикали"));
        assert!(page.contains("Ключ 5") && page.contains("Made with"));
        for external in ["http", "src=", "href=", "url("] {
            assert!(!page.contains(external), "no external requests ({external}): {page}");
        }
        let mut fewer = clues.clone();
        fewer.down.clear();
        let sheet = Sheet { clues: &fewer, ..sheet };
        assert_eq!(write(&sheet, "", false).unwrap_err().missing_clues, ["1-down", "2-down", "3-down"]);
    }
}
