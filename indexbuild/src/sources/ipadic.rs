//! Japanese readings from Debian `mecab-ipadic` (CSV sources, EUC-JP, BSD-style licence).
//!
//! Columns: 0 surface, 3 cost, 4 part of speech, 9 conjugation form, 11 katakana reading.

use std::path::Path;

use ahash::AHashMap;
use anyhow::Result;
use unicode_normalization::UnicodeNormalization;

/// The best reading of a surface form and whether it is a dictionary (citation) form.
#[derive(Debug, Clone)]
pub struct Reading {
    /// Katakana reading.
    pub reading: String,
    /// Word cost (lower is more common).
    pub cost: i32,
    /// A noun, or a verb/adjective in its dictionary form: a possible crossword answer.
    pub citation: bool,
}

/// Reads every CSV of the dictionary into surface (NFKC, lower-cased) -> best reading.
pub fn readings(unpacked_root: &Path) -> Result<AHashMap<String, Reading>> {
    let dir = unpacked_root.join("usr/share/mecab/dic/ipadic");
    let mut out: AHashMap<String, Reading> = AHashMap::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)?.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for path in entries.into_iter().filter(|p| p.extension().is_some_and(|e| e == "csv")) {
        let text = super::decode(&std::fs::read(&path)?, "EUC-JP")?;
        for line in text.lines() {
            let cols: Vec<&str> = line.split(',').collect();
            if cols.len() < 12 {
                continue;
            }
            let citation = cols[4] == "名詞" || cols[9] == "基本形" || cols[4] == "副詞" || cols[4] == "感動詞";
            let cost: i32 = cols[3].parse().unwrap_or(i32::MAX);
            let surface: String = cols[0].nfkc().collect::<String>().to_lowercase();
            let candidate = Reading { reading: cols[11].to_owned(), cost, citation };
            match out.get_mut(&surface) {
                Some(best) => {
                    // Prefer citation forms, then the most common (lowest cost) reading.
                    if (candidate.citation, -candidate.cost) > (best.citation, -best.cost) {
                        *best = candidate;
                    }
                }
                None => {
                    out.insert(surface, candidate);
                }
            }
        }
    }
    Ok(out)
}
