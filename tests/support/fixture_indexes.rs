//! Writes small synthetic indexes for all 28 languages into a folder, for contract tests
//! (schemathesis in `.ci/run`) and demos that must not depend on fetching the real corpus.
//!
//! `cargo run --example fixture_indexes -- DIR`
//!
//! Entries are made from each language's own cells (letters of its alphabet, or a few sample
//! kana, hanzi, Hangul syllables and aksharas), so every language answers queries; they are
//! not words and must not be used for anything else.

use crossword_clues::{ClueWriter, Kind, Source};
use crossword_index::IndexWriter;
use crossword_lang::{CellKind, Language};

fn main() -> std::io::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fixture-indexes".into()));
    std::fs::create_dir_all(&dir)?;
    for language in Language::all() {
        let cells: Vec<String> = match language.spec().cell {
            CellKind::Letter => language.letters().map(String::from).collect(),
            CellKind::Kana => {
                "アイウエオカキクケコサシスセソタチツテトナニヌネノガギグ".chars().map(String::from).collect()
            }
            CellKind::Hanzi => "中国人大小山水火木金土日月天地上下左右东西南北".chars().map(String::from).collect(),
            CellKind::Hangul => "가나다라마바사아자차카타파하대한민국".chars().map(String::from).collect(),
            CellKind::Akshara => {
                ["क", "ख", "ग", "म", "न", "स", "र", "ल", "क्ष", "त्र", "मा", "सी"].map(String::from).to_vec()
            }
        };
        let mut writer = IndexWriter::new(language);
        let mut clues = ClueWriter::new(language);
        let n = cells.len();
        for len in 2..=7usize {
            for i in 0..200usize {
                let entry: String = (0..len).map(|k| cells[(i * 7 + k * (i % 5 + 1)) % n].as_str()).collect();
                if let Ok(normalized) = language.normalize(&entry) {
                    let _ = writer.insert(&normalized, (i % 101) as u8);
                    // Synthetic clues of every source and a little generator material.
                    if i % 3 == 0 {
                        clues.add(&normalized, &format!("Fixture clue {i}"), Source::Dictionary, Kind::Sense, 0);
                        clues.add(
                            &normalized,
                            &format!("Printed clue {len}"),
                            Source::Published,
                            Kind::Plain,
                            i as u32 + 1,
                        );
                        clues.add(&normalized, "thing", Source::Dictionary, Kind::Hypernym, 0);
                    }
                }
            }
        }
        clues.meta("templates", serde_json::json!({ "kind_of": ["Kind of {}"], "opposite": ["Opposite of {}"] }));
        clues.write_to(&dir.join(format!("{}.cwc", language.code())))?;
        writer.meta("fixture", "synthetic entries for contract tests".into());
        writer.write_to(&dir.join(format!("{}.cwi", language.code())))?;
    }
    println!("wrote {} fixture indexes to {}", Language::all().count(), dir.display());
    Ok(())
}
