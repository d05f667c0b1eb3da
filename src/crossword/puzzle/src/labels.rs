//! The words a printed or played puzzle needs in its own language: the headings of the two clue
//! lists. One table for every writer (the printable page, the PDF and the player pages).

use crossword_lang::Language;

/// Headings of one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Labels {
    /// The across list's heading.
    pub across: &'static str,
    /// The down list's heading.
    pub down: &'static str,
}

const TABLE: &[(&str, &str, &str)] = &[
    ("en", "Across", "Down"),
    ("es", "Horizontales", "Verticales"),
    ("fr", "Horizontalement", "Verticalement"),
    ("de", "Waagerecht", "Senkrecht"),
    ("it", "Orizzontali", "Verticali"),
    ("pt", "Horizontais", "Verticais"),
    ("pl", "Poziomo", "Pionowo"),
    ("nl", "Horizontaal", "Verticaal"),
    ("zh", "横向", "纵向"),
    ("ja", "ヨコのカギ", "タテのカギ"),
    ("ko", "가로 열쇠", "세로 열쇠"),
    ("hi", "बाएँ से दाएँ", "ऊपर से नीचे"),
    ("ar", "أفقي", "عمودي"),
    ("tr", "Soldan sağa", "Yukarıdan aşağıya"),
    ("he", "מאוזן", "מאונך"),
    ("id", "Mendatar", "Menurun"),
    ("cs", "Vodorovně", "Svisle"),
    ("uk", "По горизонталі", "По вертикалі"),
    ("ro", "Orizontal", "Vertical"),
    ("ru", "По горизонтали", "По вертикали"),
    ("sv", "Vågrätt", "Lodrätt"),
    ("no", "Vannrett", "Loddrett"),
    ("da", "Vandret", "Lodret"),
    ("hr", "Vodoravno", "Okomito"),
    ("ca", "Horitzontals", "Verticals"),
    ("el", "Οριζόντια", "Κάθετα"),
    ("bg", "Хоризонтално", "Вертикално"),
    ("fi", "Vaakasuoraan", "Pystysuoraan"),
];

/// The headings of `language` (English ones for a language missing from the table, which a
/// test rules out).
pub fn labels(language: Language) -> Labels {
    let (_, across, down) =
        TABLE.iter().find(|(code, _, _)| *code == language.code()).copied().unwrap_or(("en", "Across", "Down"));
    Labels { across, down }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_its_own_headings() {
        for language in Language::all() {
            assert!(TABLE.iter().any(|(code, _, _)| *code == language.code()), "{} has no headings", language.code());
        }
        assert_eq!(TABLE.len(), Language::all().count());
        assert_eq!(labels(Language::from_code("ru").unwrap()).across, "По горизонтали");
    }
}
