//! English clues from WordNet 3.1: definitions and synonyms per sense, fill-in-the-blanks from
//! phrases, clues for inflected entries (plurals, verb forms, comparatives, adverbs, phrasal
//! verbs), and fill-in-the-blanks from WordNet's example sentences for entries still without one.

use std::collections::BTreeMap;

use crossword_clues::{AddOutcome, ClueWriter, Kind, Source};
use crossword_index::IndexWriter;

use crate::assemble::pluralize;
use crate::clue_report::has_jargon;
use crate::clues::{MAX_MATERIAL, MAX_SENSES, MAX_SYNONYMS};
use crate::sources::wordnet;

/// Fill-in-the-blank clues per word.
const MAX_BLANKS: usize = 2;

/// Adds every English clue WordNet gives, in rank order.
pub fn wordnet_clues(writer: &mut ClueWriter, senses: &wordnet::Senses, index: &IndexWriter) {
    let mut lemmas: Vec<&String> = senses.lemmas.keys().collect();
    lemmas.sort();
    // Irregular pasts first, so ATE reads "Took in solid food" before an obscure goddess.
    irregular_pasts(writer, senses, index);
    for lemma in &lemmas {
        lemma_clues(writer, senses, lemma);
    }
    blanks(writer, &lemmas, &senses.cased_lemmas(), index);
    let joined = joined_lemmas(senses);
    inflections(writer, senses, &joined, index);
    phrasal_verb_forms(writer, senses);
    example_blanks(writer, senses, index);
}

/// One lemma's senses in WordNet's frequency order (parts of speech round-robin, the most
/// SemCor-tagged first): a definition and up to two synonyms each, and broader terms and
/// opposites as generator material.
fn lemma_clues(writer: &mut ClueWriter, senses: &wordnet::Senses, lemma: &str) {
    let first_word = |pos: char, offset: u64, nth: usize| -> Option<String> {
        let s = senses.synset(pos, offset)?;
        Some(s.words.get(nth).or(s.words.first())?.replace('_', " "))
    };
    let answer = lemma.replace('_', " ");
    let mut per_pos = senses.lemmas[lemma].clone();
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
                    antonyms +=
                        usize::from(writer.add(&answer, &a, Source::Dictionary, Kind::Antonym, 0) == AddOutcome::Added);
                }
            }
        }
    }
    // Every definition and synonym gave the answer away (AIRFARE: "fare"): a broader term that
    // does not ("Kind of building" for OPIUM DEN, "Enliven, in a way" for INSPIRIT).
    let Ok(key) = writer.language().normalize(&answer) else { return };
    if writer.clue_count(&key) == 0 {
        for &(pos, offset) in ordered.iter().take(MAX_SENSES) {
            let Some(synset) = senses.synset(pos, offset) else { continue };
            let Some(h) = synset.hypernyms.first().and_then(|&(hp, ho)| first_word(hp, ho, 0)) else { continue };
            let text = if pos == 'v' { format!("{h}, in a way") } else { format!("Kind of {h}") };
            if writer.add(&answer, &text, Source::Dictionary, Kind::Sense, 0) == AddOutcome::Added {
                break;
            }
        }
    }
}

/// Fill-in-the-blank clues from two- and three-word phrases, written as WordNet writes them
/// (`___ Anna` for SANTA, proper nouns capitalized).
fn blanks(writer: &mut ClueWriter, lemmas: &[&String], cased: &ahash::AHashMap<String, String>, index: &IndexWriter) {
    let language = writer.language();
    let score = |word: &str| language.normalize(word).ok().and_then(|n| index.get(&n)).unwrap_or(0);
    let mut by_word: BTreeMap<String, Vec<(u8, String)>> = BTreeMap::new();
    for lemma in lemmas {
        let written = cased.get(lemma.as_str()).map_or(lemma.as_str(), String::as_str);
        let parts: Vec<&str> = written.split('_').collect();
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

/// Multi-word lemmas by their run-together spelling (`saleday` → `sale_day`), so an entry that
/// lost its spaces (SALEDAYS) finds its base phrase.
fn joined_lemmas(senses: &wordnet::Senses) -> ahash::AHashMap<String, Vec<String>> {
    // Several lemmas may join alike (`put_down` the verb, `put-down` the noun): keep them all.
    let mut joined: ahash::AHashMap<String, Vec<String>> = ahash::AHashMap::new();
    let mut lemmas: Vec<&String> = senses.lemmas.keys().filter(|l| l.contains(['_', '-'])).collect();
    lemmas.sort();
    for l in lemmas {
        joined.entry(l.chars().filter(char::is_ascii_alphabetic).collect()).or_default().push(l.clone());
    }
    joined
}

/// Clues for inflected entries that have none of their own: noun plurals, verb forms,
/// comparatives and superlatives, and adverbs in -ly, from their base word's senses.
fn inflections(
    writer: &mut ClueWriter,
    senses: &wordnet::Senses,
    joined: &ahash::AHashMap<String, Vec<String>>,
    index: &IndexWriter,
) {
    let mut entries: Vec<&str> = index.entries().map(|(w, _)| w).filter(|w| w.len() >= 4).collect();
    entries.sort_unstable();
    for entry in entries {
        if writer.clue_count(entry) > 0 {
            continue;
        }
        let lower = entry.to_lowercase();
        for (base, form) in base_forms(&lower) {
            let spelled: Vec<&String> = std::iter::once(&base).chain(joined.get(&base).into_iter().flatten()).collect();
            let per_pos: Vec<&(char, Vec<u64>, u32)> =
                spelled.iter().filter_map(|l| senses.lemmas.get(*l)).flatten().collect();
            let mut made = 0;
            for (pos, offsets, _) in per_pos {
                // The first sense that gives a clue (a later one when the first leaks: the
                // definition of EXPLAIN says "plain").
                for synset in offsets.iter().take(MAX_SENSES).filter_map(|&o| senses.synset(*pos, o)) {
                    let before = made;
                    for text in inflected_clues(senses, synset, &base, form, *pos) {
                        made += usize::from(
                            writer.add(entry, &text, Source::Dictionary, Kind::Inflected, 0) == AddOutcome::Added,
                        );
                    }
                    if made > before {
                        break;
                    }
                }
            }
            if made > 0 {
                break;
            }
        }
    }
}

/// The clues one sense of `base` gives its `form`.
fn inflected_clues(
    senses: &wordnet::Senses,
    synset: &wordnet::Synset,
    base: &str,
    form: Form,
    pos: char,
) -> Vec<String> {
    // Synonyms that are not the base in another spelling (`sleepy-eyed` for SLEEPIER).
    let stem: String = base.chars().take(4).collect();
    // Irregular adjectives would read wrong after "More" ("More good" for SAFER).
    let single_synonyms = || {
        synset.words.iter().filter(|w| {
            !w.to_lowercase().starts_with(&stem)
                && !w.contains(['_', '-'])
                && !["good", "bad", "well", "ill", "much", "many", "little", "far"].contains(&w.as_str())
        })
    };
    match (form, pos) {
        (Form::Plural, 'n') => {
            let mut t: Vec<String> = synset
                .words
                .iter()
                // Capitalized synonyms are names or taxa ("Tyto alba"): no plural of those.
                .filter(|w| {
                    !w.eq_ignore_ascii_case(base) && w.replace('_', "") != base && !w.starts_with(char::is_uppercase)
                })
                .take(2)
                .map(|w| pluralize(&w.replace('_', " ")))
                .collect();
            if let Some(h) = synset.hypernyms.first().and_then(|&(p, o)| senses.synset(p, o)) {
                if let Some(h) = h.words.first() {
                    t.push(format!("{}, e.g.", pluralize(&h.replace('_', " "))));
                }
            }
            t
        }
        (Form::Plural | Form::Ing | Form::Past, 'v') => {
            let mut t: Vec<String> =
                definition(&synset.gloss, 'v').and_then(|d| inflect_head(&d, form)).into_iter().collect();
            t.extend(inflected_verb_synonyms(synset, base, form));
            t
        }
        (Form::More, 'a' | 's') => single_synonyms().take(2).map(|w| format!("More {w}")).collect(),
        (Form::Most, 'a' | 's') => single_synonyms().take(2).map(|w| format!("Most {w}")).collect(),
        (Form::Ly, 'a' | 's') => {
            let short_definition = definition(&synset.gloss, 'a').filter(|d| d.len() <= 30);
            let mut t: Vec<String> = single_synonyms().take(2).map(|w| format!("In a {w} way")).collect();
            t.extend(short_definition.map(|d| format!("In a way that is {d}")));
            t
        }
        _ => Vec::new(),
    }
}

/// Verb forms of phrasal verbs (`gape at` → GAPEDAT, GAPESAT, GAPINGAT), clued with their
/// definition inflected the same way. Added whether or not the index has the form: a
/// constructor's own list may.
fn phrasal_verb_forms(writer: &mut ClueWriter, senses: &wordnet::Senses) {
    let mut verbs: Vec<(&String, u64)> = senses
        .lemmas
        .iter()
        .filter(|(l, _)| l.contains('_') && l.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .filter_map(|(l, per_pos)| {
            let (_, offsets, _) = per_pos.iter().find(|(p, _, _)| *p == 'v')?;
            Some((l, *offsets.first()?))
        })
        .collect();
    verbs.sort();
    for (lemma, offset) in verbs {
        let Some(synset) = senses.synset('v', offset) else { continue };
        let Some(def) = definition(&synset.gloss, 'v') else { continue };
        let (head, rest) = lemma.split_once('_').unwrap_or((lemma, ""));
        for form in [Form::Past, Form::Plural, Form::Ing] {
            let (Some(inflected), Some(clue)) = (inflect_head(head, form), inflect_head(&def, form)) else { continue };
            let answer = format!("{inflected} {}", rest.replace('_', " "));
            if writer.clue_count(&answer.replace(' ', "").to_uppercase()) == 0 {
                writer.add(&answer, &clue, Source::Dictionary, Kind::Inflected, 0);
            }
        }
    }
}

/// Fill-in-the-blanks from WordNet's example sentences for words of the index that still have
/// no clue (`Liveried ___ stood on the palace steps` for FOOTMEN). Only short examples, and
/// only single words of them: a span of several words is often no phrase at all ("a wad of
/// cotton to wipe" is not COTTON TO), and phrasal verbs get their forms' clues from
/// [`phrasal_verb_forms`].
fn example_blanks(writer: &mut ClueWriter, senses: &wordnet::Senses, index: &IndexWriter) {
    let mut examples: Vec<&str> = senses
        .synsets
        .values()
        .flat_map(|s| s.gloss.split(';').map(str::trim).filter(|p| p.starts_with('"')))
        .map(|p| p.trim_matches('"').trim())
        .filter(|p| (12..=50).contains(&p.chars().count()) && !p.contains(['`', '"']))
        .collect();
    examples.sort_unstable();
    examples.dedup();
    for example in examples {
        let tokens: Vec<&str> = example.split_whitespace().collect();
        if tokens.len() < 3 {
            continue;
        }
        for (i, token) in tokens.iter().enumerate() {
            if !token.chars().all(|c| c.is_ascii_alphabetic() || c == '\'') {
                continue;
            }
            let answer: String = token.chars().filter(char::is_ascii_alphabetic).collect::<String>().to_uppercase();
            if answer.len() < 3 || index.get(&answer).is_none() || writer.clue_count(&answer) > 0 {
                continue;
            }
            let text = [&tokens[..i], &["___"][..], &tokens[i + 1..]].concat().join(" ");
            writer.add(&answer, &text, Source::Dictionary, Kind::Blank, 0);
        }
    }
}

/// Irregular past forms (ATE, SWORE) get their verb's definitions in the past tense first.
fn irregular_pasts(writer: &mut ClueWriter, senses: &wordnet::Senses, index: &IndexWriter) {
    for (base, past) in IRREGULAR_PAST {
        let answer = past.to_uppercase();
        if index.get(&answer).is_none() {
            continue;
        }
        let Some(per_pos) = senses.lemmas.get(*base) else { continue };
        let Some((_, offsets, _)) = per_pos.iter().find(|(p, _, _)| *p == 'v') else { continue };
        for &o in offsets.iter().take(2) {
            let Some(synset) = senses.synset('v', o) else { continue };
            if let Some(text) = definition(&synset.gloss, 'v').and_then(|d| inflect_head(&d, Form::Past)) {
                writer.add(past, &text, Source::Dictionary, Kind::Inflected, 0);
            }
            for synonym in inflected_verb_synonyms(synset, base, Form::Past) {
                writer.add(past, &synonym, Source::Dictionary, Kind::Synonym, 0);
            }
        }
    }
}

/// A verb sense's one-word synonyms in `form` (`make` → "Created", "Produced" for MADE), two
/// at most; synonyms sharing the base's first four letters are left out.
fn inflected_verb_synonyms(synset: &wordnet::Synset, base: &str, form: Form) -> Vec<String> {
    let stem: String = base.chars().take(4).collect();
    synset
        .words
        .iter()
        .filter(|w| !w.contains(['_', '-']) && !w.starts_with(char::is_uppercase) && !w.starts_with(&stem))
        .filter_map(|w| inflect_head(w, form))
        .take(2)
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Noun plural or third person singular.
    Plural,
    Ing,
    Past,
    /// Comparative (`sleepier`).
    More,
    /// Superlative (`sleepiest`).
    Most,
    /// Adverb in -ly (`acridly`).
    Ly,
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
    for (suffix, form) in [("er", Form::More), ("est", Form::Most)] {
        if let Some(s) = word.strip_suffix(&format!("i{suffix}")) {
            push(s, "y", form);
        }
        if let Some(s) = word.strip_suffix(suffix) {
            push(s, "", form);
            push(s, "e", form);
            if let Some(single) = undouble(s) {
                push(single, "", form);
            }
        }
    }
    if let Some(s) = word.strip_suffix("ily") {
        push(s, "y", Form::Ly);
    }
    if let Some(s) = word.strip_suffix("ly") {
        push(s, "", Form::Ly);
        push(s, "le", Form::Ly);
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
        Form::More | Form::Most | Form::Ly => return None,
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
    // "stop or slow up" → "stops or slows up": the second verb of a pair too.
    let rest = match rest.split_once(' ').map(|(c, r)| (c, r.split_once(' ').unwrap_or((r, "")))) {
        Some((conj @ ("or" | "and"), (verb, tail)))
            if verb.chars().all(|c| c.is_ascii_lowercase()) && verb.len() > 1 =>
        {
            match inflect_head(verb, form) {
                Some(v) if tail.is_empty() => format!("{conj} {v}"),
                Some(v) => format!("{conj} {v} {tail}"),
                None => rest.to_owned(),
            }
        }
        _ => rest.to_owned(),
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
    let mut text = without_taxonomy(&text)?;
    if text.chars().count() > LONG_DEFINITION {
        let cut = [
            ", ",
            " that ",
            " which ",
            " who ",
            " especially ",
            " usually ",
            " as ",
            " with ",
            " having ",
            " used ",
            " or ",
            " and ",
        ]
        .iter()
        .filter_map(|sep| text.find(sep))
        .filter(|&i| i >= 15)
        .min();
        if let Some(cut) = cut {
            text.truncate(cut);
        }
    }
    let mut text = text.trim_end_matches([',', ';', ':', ' ']).to_owned();
    // A cut may leave a dangling word: "oils and", "fact or a".
    while let Some((head, last)) = text.rsplit_once(' ') {
        if !["and", "or", "of", "the", "a", "an", "to", "in", "by", "for"].contains(&last) {
            break;
        }
        text = head.to_owned();
    }
    (!text.is_empty()
        && text.chars().count() <= crossword_clues::MAX_CLUE_CHARS
        && !has_jargon(&text)
        && !not_for_the_breakfast_table(&text))
    .then_some(text)
}

/// Sexual definitions, which a newspaper crossword would not print ("Had sexual intercourse
/// with" for DID IT): the entry keeps its other senses.
fn not_for_the_breakfast_table(text: &str) -> bool {
    const WORDS: &[&str] =
        &["sexual", "intercourse", "copulate", "copulation", "fornicate", "genitals", "genital", "penis", "vagina"];
    text.split(|c: char| !c.is_ascii_alphabetic()).any(|w| WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Definitions longer than this are cut at their first clause boundary.
const LONG_DEFINITION: usize = 60;

/// A definition without its taxonomy note: `gastropods of the genus Haliotis having …` keeps
/// `gastropods`; `None` when little is left (`Sometimes placed in subfamily Trilliaceae`).
fn without_taxonomy(text: &str) -> Option<String> {
    const RANKS: &[&str] = &["genus", "family", "subfamily", "order", "suborder", "class", "subclass", "phylum"];
    let words: Vec<&str> = text.split(' ').collect();
    let note = words.iter().enumerate().position(|(i, w)| {
        RANKS.contains(w) && words.get(i + 1).is_some_and(|n| n.chars().next().is_some_and(char::is_uppercase))
    });
    let Some(at) = note else { return Some(text.to_owned()) };
    if at < 4 {
        // The definition is the taxonomy note ("sometimes placed in subfamily Trilliaceae").
        return None;
    }
    // Drop the preposition and article before the rank too: "of the genus", "in family".
    let mut keep = at;
    while keep > 0 && ["of", "in", "the", "a"].contains(&words[keep - 1]) {
        keep -= 1;
    }
    let kept = words[..keep].join(" ");
    (keep >= 2 && kept.len() >= 8).then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taxonomy_notes_are_dropped() {
        assert_eq!(
            definition(
                "any of various large edible marine gastropods of the genus Haliotis having an ear-shaped shell",
                'n'
            )
            .as_deref(),
            Some("any of various large edible marine gastropods")
        );
        assert_eq!(definition("sometimes placed in subfamily Trilliaceae", 'n'), None);
        assert_eq!(definition("a member of the family", 'n').as_deref(), Some("member of the family"));
    }

    #[test]
    fn comparatives_adverbs_and_phrases_find_their_base() {
        assert!(base_forms("sleepier").contains(&("sleepy".to_owned(), Form::More)));
        assert!(base_forms("biggest").contains(&("big".to_owned(), Form::Most)));
        assert!(base_forms("nicer").contains(&("nice".to_owned(), Form::More)));
        assert!(base_forms("acridly").contains(&("acrid".to_owned(), Form::Ly)));
        assert!(base_forms("happily").contains(&("happy".to_owned(), Form::Ly)));
        assert!(base_forms("saledays").contains(&("saleday".to_owned(), Form::Plural)));
    }

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
        assert_eq!(inflect_head("stop or slow up", Form::Plural).as_deref(), Some("stops or slows up"));
        assert_eq!(inflect_head("move and shake", Form::Past).as_deref(), Some("moved and shook"));
        let bases = base_forms("running");
        assert!(bases.contains(&("run".to_owned(), Form::Ing)));
        assert!(base_forms("cats").contains(&("cat".to_owned(), Form::Plural)));
        assert!(base_forms("ponies").contains(&("pony".to_owned(), Form::Plural)));
        assert!(base_forms("boxes").contains(&("box".to_owned(), Form::Plural)));
        assert!(base_forms("carried").contains(&("carry".to_owned(), Form::Past)));
    }
}
