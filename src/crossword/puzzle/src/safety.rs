//! The safety check: adult themes and blocked words in a puzzle's answers, clues, title and
//! writeup.
//!
//! Two per-language lists, both in `corpus/` and compiled in: `blocklists/CODE.txt` (the index
//! builder's list; its removed entries, the lines without a score cap, are *blocked words*) and
//! `adult-themes/CODE.txt` (words that mark adult themes but are not blocked). A puzzle has
//! adult themes when either list matches; it is *flagged* for showcase review when a blocked
//! word matches. Text is cut into words at anything that is not a letter or a digit, each word
//! (and each pair of neighbouring words, for two-word entries) folded like the language's grid
//! letters, and compared with the folded list; answers are compared whole.

use std::collections::HashSet;
use std::sync::OnceLock;

use crossword_lang::Language;

macro_rules! lists {
    ($(($code:literal, $block:expr, $adult:expr)),* $(,)?) => {
        &[$(($code, $block, $adult)),*]
    };
}

/// `(code, blocklist, adult-theme list)`; a language without a file has an empty text.
const SOURCES: &[(&str, &str, &str)] = lists![
    (
        "en",
        include_str!("../../../../corpus/blocklists/en.txt"),
        include_str!("../../../../corpus/adult-themes/en.txt")
    ),
    (
        "fr",
        include_str!("../../../../corpus/blocklists/fr.txt"),
        include_str!("../../../../corpus/adult-themes/fr.txt")
    ),
    (
        "de",
        include_str!("../../../../corpus/blocklists/de.txt"),
        include_str!("../../../../corpus/adult-themes/de.txt")
    ),
    (
        "es",
        include_str!("../../../../corpus/blocklists/es.txt"),
        include_str!("../../../../corpus/adult-themes/es.txt")
    ),
    (
        "it",
        include_str!("../../../../corpus/blocklists/it.txt"),
        include_str!("../../../../corpus/adult-themes/it.txt")
    ),
    (
        "pt",
        include_str!("../../../../corpus/blocklists/pt.txt"),
        include_str!("../../../../corpus/adult-themes/pt.txt")
    ),
    (
        "nl",
        include_str!("../../../../corpus/blocklists/nl.txt"),
        include_str!("../../../../corpus/adult-themes/nl.txt")
    ),
    (
        "ru",
        include_str!("../../../../corpus/blocklists/ru.txt"),
        include_str!("../../../../corpus/adult-themes/ru.txt")
    ),
    ("pl", include_str!("../../../../corpus/blocklists/pl.txt"), ""),
    ("tr", include_str!("../../../../corpus/blocklists/tr.txt"), ""),
    ("id", include_str!("../../../../corpus/blocklists/id.txt"), ""),
    ("cs", include_str!("../../../../corpus/blocklists/cs.txt"), ""),
    ("uk", include_str!("../../../../corpus/blocklists/uk.txt"), ""),
    ("ro", include_str!("../../../../corpus/blocklists/ro.txt"), ""),
    ("sv", include_str!("../../../../corpus/blocklists/sv.txt"), ""),
    ("no", include_str!("../../../../corpus/blocklists/no.txt"), ""),
    ("da", include_str!("../../../../corpus/blocklists/da.txt"), ""),
    ("hr", include_str!("../../../../corpus/blocklists/hr.txt"), ""),
    ("ca", include_str!("../../../../corpus/blocklists/ca.txt"), ""),
    ("el", include_str!("../../../../corpus/blocklists/el.txt"), ""),
    ("bg", include_str!("../../../../corpus/blocklists/bg.txt"), ""),
    ("fi", include_str!("../../../../corpus/blocklists/fi.txt"), ""),
];

/// The folded word sets of one language.
#[derive(Debug, Default)]
struct Lists {
    blocked: HashSet<String>,
    adult: HashSet<String>,
}

fn fold(language: Language, word: &str) -> Option<String> {
    let folded = language.normalize(word).ok()?;
    (!folded.is_empty()).then_some(folded)
}

fn parse(language: Language, text: &str, blocked_only: bool) -> HashSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !(blocked_only && l.contains(';')))
        .filter_map(|l| fold(language, l.split(';').next().unwrap_or("")))
        .collect()
}

fn lists(language: Language) -> &'static Lists {
    static ALL: OnceLock<Vec<(&'static str, Lists)>> = OnceLock::new();
    static EMPTY: OnceLock<Lists> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        SOURCES
            .iter()
            .filter_map(|(code, block, adult)| {
                let language = Language::from_code(code)?;
                Some((*code, Lists { blocked: parse(language, block, true), adult: parse(language, adult, false) }))
            })
            .collect()
    });
    all.iter()
        .find(|(code, _)| *code == language.code())
        .map(|(_, l)| l)
        .unwrap_or_else(|| EMPTY.get_or_init(Lists::default))
}

/// What the check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Adult themes (an adult-theme or a blocked word).
    pub adult_themes: bool,
    /// Blocked words found (folded), for the showcase pre-check.
    pub blocked: Vec<String>,
}

/// Checks `answers` (normalized, compared whole) and free `texts` (clues, title, writeup).
pub fn check<'t>(language: Language, answers: &[String], texts: impl IntoIterator<Item = &'t str>) -> Verdict {
    let lists = lists(language);
    let mut words: Vec<String> = answers.to_vec();
    for text in texts {
        let tokens: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty())
            .filter_map(|t| fold(language, t))
            .collect();
        for pair in tokens.windows(2) {
            words.push(format!("{}{}", pair[0], pair[1]));
        }
        words.extend(tokens);
    }
    let mut verdict = Verdict::default();
    for w in &words {
        if lists.blocked.contains(w) {
            if !verdict.blocked.contains(w) {
                verdict.blocked.push(w.clone());
            }
            verdict.adult_themes = true;
        } else if lists.adult.contains(w) {
            verdict.adult_themes = true;
        }
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_in_the_corpus_is_compiled_in() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../corpus");
        for dir in ["blocklists", "adult-themes"] {
            for file in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
                let name = file.unwrap().file_name().into_string().unwrap();
                let code = name.trim_end_matches(".txt");
                let entry = SOURCES.iter().find(|(c, _, _)| *c == code);
                assert!(entry.is_some(), "{dir}/{name} is not compiled into the safety check");
                if dir == "adult-themes" {
                    assert!(!entry.unwrap().2.is_empty(), "{dir}/{name} is compiled in as empty");
                }
            }
        }
    }

    #[test]
    fn answers_clues_and_titles_are_checked() {
        let en = Language::english();
        let clean = check(en, &["CAT".into()], ["Feline pet", "A gentle Monday"]);
        assert_eq!(clean, Verdict::default());
        let adult = check(en, &["CAT".into()], ["Late-night EROTICA shelf"]);
        assert!(adult.adult_themes && adult.blocked.is_empty());
        let answer = check(en, &["PORN".into()], [""]);
        assert!(answer.adult_themes);
        let blocked = check(en, &[], ["Utter bullshit!"]);
        assert!(blocked.adult_themes);
        assert_eq!(blocked.blocked.len(), 1);
        // Capped entries (an innocent sense) are not blocked words.
        let fr = Language::from_code("fr").unwrap();
        assert!(!check(fr, &[], ["Une tapette à mouches"]).adult_themes);
        assert!(check(fr, &[], ["ÉROTIQUE"]).adult_themes, "accents fold like grid letters");
        // A language without lists finds nothing.
        assert_eq!(check(Language::from_code("ja").unwrap(), &["ア".into()], ["x"]), Verdict::default());
    }
}
