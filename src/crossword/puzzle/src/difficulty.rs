//! The difficulty rating: a few signals a solver feels, summed into points, cut into four
//! bands. `docs/difficulty.md` has the formula, the reasoning behind each weight and the
//! calibration.

use crossword_fill::Square;

use crate::model::{entries, Difficulty};
use crate::Sheet;

/// What the rating looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    /// Mean word-list score of the answers (0-100; answers the list does not know count as
    /// [`UNKNOWN_SCORE`]).
    pub mean_score: f64,
    /// Mean answer length in cells.
    pub mean_length: f64,
    /// Answers per white cell (low: an open, wide-ranging grid).
    pub words_per_cell: f64,
    /// Share of clues ending in `?` (wordplay).
    pub wordplay_share: f64,
    /// Share of fill-in-the-blank clues (`___`, `…` or `...`).
    pub blank_share: f64,
    /// Share of clues that are also in the clue collection for their answer (familiar ones).
    pub familiar_share: f64,
}

/// The score given to an answer the word list does not know.
pub const UNKNOWN_SCORE: f64 = 30.0;

/// Collects the signals of a finished puzzle; `score_of` looks an answer up in the word list,
/// `familiar` says whether a clue of an answer is in the collection.
pub fn signals(
    sheet: &Sheet<'_>,
    score_of: impl Fn(&str) -> Option<u8>,
    familiar: impl Fn(&str, &str) -> bool,
) -> Signals {
    let all = entries(sheet.language, &sheet.grid);
    let white = sheet.grid.squares().iter().filter(|s| **s != Square::Block).count().max(1);
    let answers: Vec<(&str, Option<&str>, usize)> = all
        .iter()
        .filter_map(|e| Some((e.answer.as_deref()?, sheet.clues.text(e.direction, e.number), e.cells.len())))
        .collect();
    let n = answers.len().max(1) as f64;
    let clued: Vec<(&str, &str)> = answers.iter().filter_map(|(a, c, _)| Some((*a, (*c)?.trim()))).collect();
    let m = clued.len().max(1) as f64;
    let share = |f: &dyn Fn(&str, &str) -> bool| clued.iter().filter(|(a, c)| f(a, c)).count() as f64 / m;
    Signals {
        mean_score: answers.iter().map(|(a, _, _)| score_of(a).map_or(UNKNOWN_SCORE, f64::from)).sum::<f64>() / n,
        mean_length: answers.iter().map(|(_, _, len)| *len as f64).sum::<f64>() / n,
        words_per_cell: all.len() as f64 / white as f64,
        wordplay_share: share(&|_, c| c.ends_with('?')),
        blank_share: share(&|_, c| c.contains("___") || c.contains('…') || c.contains("...")),
        familiar_share: share(&|a, c| familiar(a, c)),
    }
}

/// The points of a puzzle (higher is harder).
pub fn points(s: &Signals) -> f64 {
    0.8 * (60.0 - s.mean_score)
        + 3.0 * (s.mean_length - 5.0)
        + 50.0 * (0.33 - s.words_per_cell)
        + 25.0 * s.wordplay_share
        - 15.0 * s.blank_share
        - 10.0 * s.familiar_share
}

/// The band of a number of points.
pub fn band(points: f64) -> Difficulty {
    match points {
        p if p < -5.0 => Difficulty::Easy,
        p if p < 8.0 => Difficulty::Medium,
        p if p < 18.0 => Difficulty::Hard,
        _ => Difficulty::Expert,
    }
}

/// The rating of a puzzle.
pub fn rate(s: &Signals) -> Difficulty {
    band(points(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals_of(
        mean_score: f64,
        mean_length: f64,
        words_per_cell: f64,
        wordplay: f64,
        blank: f64,
        familiar: f64,
    ) -> Signals {
        Signals {
            mean_score,
            mean_length,
            words_per_cell,
            wordplay_share: wordplay,
            blank_share: blank,
            familiar_share: familiar,
        }
    }

    #[test]
    fn the_bands_follow_what_solvers_feel() {
        // An early-week 15x15: common fill, 78 words, straight and familiar clues, some blanks.
        let monday = signals_of(62.0, 4.9, 78.0 / 189.0, 0.02, 0.10, 0.6);
        // A midweek puzzle: the same grid shape, less familiar clues, some wordplay.
        let midweek = signals_of(55.0, 5.1, 76.0 / 189.0, 0.08, 0.03, 0.3);
        // A late-week themeless: 64 words, longer answers, tougher fill and more wordplay.
        let friday = signals_of(50.0, 6.4, 64.0 / 198.0, 0.15, 0.02, 0.15);
        // A Saturday-hard themeless: obscure fill, little familiar cluing.
        let saturday = signals_of(45.0, 6.8, 62.0 / 200.0, 0.2, 0.0, 0.05);
        let rated: Vec<Difficulty> = [monday, midweek, friday, saturday].iter().map(rate).collect();
        assert_eq!(rated, [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard, Difficulty::Expert]);
        assert!(points(&monday) < points(&midweek) && points(&friday) < points(&saturday));
    }

    #[test]
    fn signals_come_from_the_grid_and_clues() {
        use crate::Clues;
        use crossword_fill::Grid;
        use crossword_lang::Language;
        let en = Language::english();
        let grid = Grid::parse(en, &["CAT", "ODE", "WET"]).unwrap();
        let mut clues = Clues::default();
        clues.across.insert(1, "Pet?".into());
        clues.across.insert(4, "___ to joy".into());
        clues.down.insert(1, "Milk source".into());
        let sheet = Sheet { language: en, title: "", author: "", grid, clues: &clues, writeup: "" };
        let s = signals(&sheet, |a| (a == "CAT").then_some(90), |a, c| a == "COW" && c == "Milk source");
        assert!((s.mean_score - (90.0 + 5.0 * UNKNOWN_SCORE) / 6.0).abs() < 1e-9);
        assert_eq!(s.mean_length, 3.0);
        assert!((s.wordplay_share - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.blank_share - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.familiar_share - 1.0 / 3.0).abs() < 1e-9);
        assert!((s.words_per_cell - 6.0 / 9.0).abs() < 1e-9);
    }
}
