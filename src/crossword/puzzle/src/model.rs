//! The stored puzzle record and what a grid asks of its clues.
//!
//! Clue numbers are the ones printed on the grid: the fill engine's numbering
//! ([`Grid::slots`]) with the language's `minSlotLength`, so a two-cell run in English is not an
//! answer and gets no number. An answer is *finished* when every cell of it holds a letter;
//! only finished answers need a clue before publishing.

use std::collections::BTreeMap;

use crossword_fill::{Direction, Grid, GridError};
use crossword_lang::Language;
use serde::{Deserialize, Serialize};

/// Clue texts of one direction, by the number printed on the grid.
pub type ClueSet = BTreeMap<u32, String>;

/// Both clue sets (`across`, `down`); serialized with the numbers as string keys.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clues {
    /// Across clues.
    #[serde(default)]
    pub across: ClueSet,
    /// Down clues.
    #[serde(default)]
    pub down: ClueSet,
}

impl Clues {
    /// The clue set of a direction.
    pub fn of(&self, direction: Direction) -> &ClueSet {
        match direction {
            Direction::Across => &self.across,
            Direction::Down => &self.down,
        }
    }

    /// The clue set of a direction, to change.
    pub fn of_mut(&mut self, direction: Direction) -> &mut ClueSet {
        match direction {
            Direction::Across => &mut self.across,
            Direction::Down => &mut self.down,
        }
    }

    /// A clue's text, when it has a non-blank one.
    pub fn text(&self, direction: Direction, number: u32) -> Option<&str> {
        self.of(direction).get(&number).map(String::as_str).filter(|t| !t.trim().is_empty())
    }

    /// Keeps only the clues whose number and direction are entries of `entries`.
    pub fn retain_entries(&mut self, entries: &[Entry]) {
        for direction in [Direction::Across, Direction::Down] {
            self.of_mut(direction).retain(|n, _| entries.iter().any(|e| e.direction == direction && e.number == *n));
        }
    }
}

/// `draft` or `published`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Only its owner sees it.
    Draft,
    /// Public at its `url`.
    Published,
}

impl Status {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Published => "published",
        }
    }
}

/// Where a puzzle stands in showcase review (null in the API: never submitted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShowcaseStatus {
    /// Submitted; the automatic pre-check has not run yet.
    Pending,
    /// The pre-check found nothing; a person still reviews it.
    PreApproved,
    /// The pre-check found a blocked word; a person checks it.
    Flagged,
    /// A person approved it.
    Approved,
    /// A person rejected it.
    Rejected,
}

impl ShowcaseStatus {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ShowcaseStatus::Pending => "pending",
            ShowcaseStatus::PreApproved => "pre_approved",
            ShowcaseStatus::Flagged => "flagged",
            ShowcaseStatus::Approved => "approved",
            ShowcaseStatus::Rejected => "rejected",
        }
    }

    /// True while a person has not finished the review: the puzzle holds one of its account's
    /// three queue places.
    pub fn is_queued(self) -> bool {
        matches!(self, ShowcaseStatus::Pending | ShowcaseStatus::PreApproved | ShowcaseStatus::Flagged)
    }
}

/// The difficulty rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Difficulty {
    /// Easy.
    Easy,
    /// Medium.
    Medium,
    /// Hard.
    Hard,
    /// Expert.
    Expert,
}

impl Difficulty {
    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
            Difficulty::Expert => "expert",
        }
    }
}

/// A stored puzzle: everything the API returns (but `size`, `url` and `embedUrl`, which are
/// derived) plus its owner, the proof tokens of its AI clues and its version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// `^[a-z0-9]{8}$`.
    pub id: String,
    /// The owning account.
    pub owner: String,
    /// 0 to 200 characters (1 to 200 on create and publish).
    pub title: String,
    /// Printed name, 0 to 100 characters.
    pub author: String,
    /// Language code (`pt-BR` is stored as `pt`).
    pub language: String,
    /// Rows as normalized by the language (`.`, `#`, letters).
    pub grid: Vec<String>,
    /// Clue texts.
    pub clues: Clues,
    /// Proof tokens of AI clues (`7-across` to token), checked when the puzzle is published.
    #[serde(default)]
    pub clue_tokens: BTreeMap<String, String>,
    /// Theme answers.
    pub theme_words: Vec<String>,
    /// Draft or published.
    pub status: Status,
    /// Showcase review (`None`: never submitted).
    pub showcase_status: Option<ShowcaseStatus>,
    /// A reviewer's reason for a rejection.
    #[serde(default)]
    pub showcase_note: Option<String>,
    /// The safety check's verdict.
    pub adult_themes: bool,
    /// The rating (`None` for drafts and while it is being made).
    pub difficulty: Option<Difficulty>,
    /// Constructor's note, at most 2000 characters.
    pub writeup: String,
    /// Linked from the author's public page.
    pub show_profile: bool,
    /// Search engines are asked to skip the page.
    pub no_index: bool,
    /// Creation time, Unix milliseconds.
    pub created_at: u64,
    /// Last edit, Unix milliseconds.
    pub updated_at: u64,
    /// First publication, Unix milliseconds.
    #[serde(default)]
    pub published_at: Option<u64>,
    /// 1 on create; each edit kept in the history adds one.
    pub version: u32,
    /// What the edit that made this version changed (`["created"]` for version 1).
    #[serde(default)]
    pub changed: Vec<String>,
    /// Bumped by the store on every write (edits, publishing, review, ratings), for
    /// optimistic concurrency; not part of the API.
    #[serde(default)]
    pub revision: u64,
}

impl Puzzle {
    /// The language (`None` only for a record written by a build that knew more languages).
    pub fn language(&self) -> Option<Language> {
        Language::from_code(&self.language)
    }

    /// The parsed grid.
    pub fn parsed_grid(&self) -> Result<(Language, Grid), GridError> {
        let language = self.language().ok_or_else(|| GridError {
            message: format!("unknown language {}", self.language),
            row: None,
            col: None,
        })?;
        Ok((language, Grid::parse(language, &self.grid)?))
    }

    /// Side length.
    pub fn size(&self) -> usize {
        self.grid.len()
    }

    /// The view the file writers need (`None` when the stored grid no longer parses).
    pub fn sheet(&self) -> Option<Sheet<'_>> {
        let (language, grid) = self.parsed_grid().ok()?;
        Some(Sheet {
            language,
            title: &self.title,
            author: &self.author,
            grid,
            clues: &self.clues,
            writeup: &self.writeup,
        })
    }
}

/// The address part of an author's page (`/u/<slug>`): the printed name in lower case, letters
/// and digits of any script kept, everything else turned into single hyphens (`Ann O'Neil` is
/// `ann-o-neil`). Empty for a name without letters or digits.
pub fn author_slug(author: &str) -> String {
    let mut slug = String::new();
    for ch in author.chars().flat_map(char::to_lowercase) {
        if ch.is_alphanumeric() {
            slug.push(ch);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_owned()
}

/// What a file writer needs of a puzzle.
#[derive(Debug, Clone)]
pub struct Sheet<'p> {
    /// The language.
    pub language: Language,
    /// Title.
    pub title: &'p str,
    /// Author.
    pub author: &'p str,
    /// The grid.
    pub grid: Grid,
    /// Clues by printed number.
    pub clues: &'p Clues,
    /// The constructor's note.
    pub writeup: &'p str,
}

impl Sheet<'_> {
    /// The numbered entries of the grid.
    pub fn entries(&self) -> Vec<Entry> {
        entries(self.language, &self.grid)
    }
}

/// One answer of a grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Printed number.
    pub number: u32,
    /// Across or down.
    pub direction: Direction,
    /// Row of the first cell.
    pub row: usize,
    /// Column of the first cell.
    pub col: usize,
    /// Cells (row-major indices).
    pub cells: Vec<usize>,
    /// The answer, when every cell holds a letter.
    pub answer: Option<String>,
}

impl Entry {
    /// `7-across`.
    pub fn label(&self) -> String {
        format!("{}-{}", self.number, self.direction.as_str())
    }
}

/// The numbered entries of a grid (runs of at least the language's `minSlotLength`), in
/// number order, across before down.
pub fn entries(language: Language, grid: &Grid) -> Vec<Entry> {
    grid.slots(usize::from(language.spec().min_slot_length))
        .into_iter()
        .map(|s| Entry {
            number: s.number,
            direction: s.direction,
            row: s.row,
            col: s.col,
            answer: grid.slot_text(&s),
            cells: s.cells,
        })
        .collect()
}

/// The finished answers that lack a clue (`7-across`), in number order.
pub fn missing_clues(entries: &[Entry], clues: &Clues) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e.answer.is_some() && clues.text(e.direction, e.number).is_none())
        .map(Entry::label)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finished_answers_need_clues() {
        let en = Language::english();
        let grid = Grid::parse(en, &["CAT", "A#.", "BEE"]).unwrap();
        let entries = entries(en, &grid);
        let labels: Vec<String> = entries.iter().map(Entry::label).collect();
        assert_eq!(labels, ["1-across", "1-down", "2-down", "3-across"]);
        let mut clues = Clues::default();
        clues.across.insert(1, "Pet".into());
        clues.down.insert(2, "   ".into());
        // 1-down (C A B) and 3-across (B E E) are finished; 2-down (T . E) is not.
        assert_eq!(missing_clues(&entries, &clues), ["1-down", "3-across"]);
        let json = serde_json::to_value(&clues).unwrap();
        assert_eq!(json["across"]["1"], "Pet", "numbers are string keys");
        assert_eq!(serde_json::from_value::<Clues>(json).unwrap(), clues);
    }

    #[test]
    fn stale_clues_are_dropped_for_a_new_grid() {
        let en = Language::english();
        let grid = Grid::parse(en, &["CAT", "###", "###"]).unwrap();
        let mut clues = Clues::default();
        clues.across.insert(1, "Pet".into());
        clues.across.insert(4, "Gone".into());
        clues.down.insert(1, "Gone too".into());
        clues.retain_entries(&entries(en, &grid));
        assert_eq!(clues.across.len(), 1);
        assert!(clues.down.is_empty());
    }

    #[test]
    fn author_slugs_keep_letters_of_any_script() {
        assert_eq!(author_slug("Ann O'Neil"), "ann-o-neil");
        assert_eq!(author_slug("  Борис  Ш. "), "борис-ш");
        assert_eq!(author_slug("?!"), "");
    }

    #[test]
    fn queued_showcase_states_hold_a_place() {
        use ShowcaseStatus::*;
        let queued: Vec<bool> = [Pending, PreApproved, Flagged, Approved, Rejected].map(|s| s.is_queued()).to_vec();
        assert_eq!(queued, [true, true, true, false, false]);
        assert_eq!(serde_json::to_value(PreApproved).unwrap(), "pre_approved");
    }
}
