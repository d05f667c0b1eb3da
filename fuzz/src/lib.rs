//! The fuzz targets of both services, as plain functions of one input each: libFuzzer calls them
//! through the binaries in `fuzz_targets/`, and the unit tests below replay every input kept in
//! `fuzz/corpus/<target>/`, so `cargo test` (and `.ci/run`) checks the corpora on every change
//! without a fuzzer.
//!
//! Each function panics only when a property fails: a reader or parser that panics, a writer
//! whose output its own reader refuses, a `.puz` file whose checksums are wrong, an upload
//! decoded past its limits, a request answered with a 5xx or without a problem document.

use std::path::PathBuf;
use std::sync::OnceLock;

use crossword_fill::grid::Grid;
use crossword_lang::Language;
use serde_json::Value;

pub mod puz_check;
mod requests;

pub use requests::request_bodies;

/// Every language, in a fixed order; the first input byte picks one.
fn language(selector: u8) -> Language {
    let all: Vec<Language> = Language::all().collect();
    all[usize::from(selector) % all.len()]
}

/// Grid text in any language: rows split on newlines. Parsing never panics; a parsed grid's
/// rows parse again to the same grid, and its entries and slots stay inside it.
pub fn grid(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let language = language(selector);
    let text = String::from_utf8_lossy(rest);
    let rows: Vec<&str> = text.split('\n').collect();
    let Ok(grid) = Grid::parse(language, &rows) else { return };
    let again = Grid::parse(language, &grid.to_rows()).expect("a parsed grid's rows parse again");
    assert_eq!(again.to_rows(), grid.to_rows());
    let n = grid.size();
    assert_eq!(grid.squares().len(), n * n);
    for slot in grid.slots(2) {
        let _ = grid.slot_text(&slot);
    }
    let entries = crossword_puzzle::entries(language, &grid);
    let clues = crossword_puzzle::Clues::default();
    assert!(crossword_puzzle::missing_clues(&entries, &clues).len() <= entries.len());
}

/// Text normalized in every language, and parsed as a search pattern. Never panics;
/// normalization is idempotent, its cells join back to it, and a pattern has 1 to 23 cells.
pub fn normalize(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for language in Language::all() {
        if let Ok(normalized) = language.normalize(&text) {
            assert_eq!(language.normalize(&normalized).as_deref(), Ok(normalized.as_str()), "{}", language.code());
            assert_eq!(language.split_cells(&normalized).concat(), normalized, "{}", language.code());
            assert!(language.invalid_chars(&text).is_empty(), "{}", language.code());
        } else {
            assert!(!language.invalid_chars(&text).is_empty(), "{}", language.code());
        }
        let _ = language.to_cells(&text);
        if let Ok(pattern) = crossword_index::Pattern::parse(language, &text) {
            assert!((1..=23).contains(&pattern.len()), "{}", language.code());
        }
    }
}

/// A `.puz` or ipuz file (the first byte picks the reader and a language). Reading never
/// panics; what reads is written again in both formats, a written `.puz` passes every checksum
/// of the format (checked by [`puz_check`], written apart from the writer), and the written files
/// read back to the same grid and clues.
pub fn puzzle_files(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else { return };
    let exportable: Vec<Language> = Language::all().filter(|l| l.spec().puz_exportable).collect();
    let language = exportable[usize::from(selector >> 1) % exportable.len()];
    let read = if selector & 1 == 0 {
        crossword_puzzle::puz::read(bytes, language)
    } else {
        crossword_puzzle::ipuz::read(bytes, language)
    };
    let Ok(imported) = read else { return };
    let Ok(grid) = Grid::parse(language, &imported.grid) else { return };
    let sheet = crossword_puzzle::Sheet {
        language,
        title: &imported.title,
        author: &imported.author,
        grid,
        clues: &imported.clues,
        writeup: &imported.notes,
    };
    if let Ok(file) = crossword_puzzle::puz::write(&sheet, &imported.notes) {
        if let Err(why) = puz_check::verify(&file) {
            panic!("a written .puz breaks the format: {why}");
        }
        let back = crossword_puzzle::puz::read(&file, language).expect("a written .puz reads back");
        assert_eq!(back.grid, imported.grid);
        assert_eq!(back.clues, *sheet.clues);
    }
    let doc = crossword_puzzle::ipuz::write(&sheet, "fuzz");
    let bytes = serde_json::to_vec(&doc).expect("JSON");
    let back = crossword_puzzle::ipuz::read(&bytes, language).expect("a written ipuz reads back");
    assert_eq!(back.grid, imported.grid);
}

/// A valid small index and clue file, built once, for [`data_files`] to corrupt.
struct Originals {
    dir: tempfile::TempDir,
    index: Vec<u8>,
    clues: Vec<u8>,
}

fn originals() -> &'static Originals {
    static ORIGINALS: OnceLock<Originals> = OnceLock::new();
    ORIGINALS.get_or_init(|| {
        use crossword_clues::{ClueWriter, Kind, Source};
        let dir = tempfile::tempdir().expect("temporary folder");
        let en = Language::english();
        let mut index = crossword_index::IndexWriter::new(en);
        let mut clues = ClueWriter::new(en);
        let letters = b"ETAOINSHRDLU";
        for len in 2..=9usize {
            for i in 0..60usize {
                let word: String =
                    (0..len).map(|k| letters[(i * 5 + k * (i % 7 + 1)) % letters.len()] as char).collect();
                let _ = index.insert(&word, (i * 13 % 101) as u8);
                if i % 4 == 0 {
                    clues.add(&word, &format!("Clue {i}"), Source::Dictionary, Kind::Sense, 0);
                    clues.add(&word, "Printed", Source::Published, Kind::Plain, i as u32 + 1);
                }
            }
        }
        let (index_path, clue_path) = (dir.path().join("en.cwi"), dir.path().join("en.cwc"));
        index.write_to(&index_path).expect("index");
        clues.write_to(&clue_path).expect("clues");
        let index = std::fs::read(index_path).expect("index bytes");
        let clues = std::fs::read(clue_path).expect("clue bytes");
        Originals { dir, index, clues }
    })
}

/// Applies the input to a copy of `original`: two bytes of length to cut to, then patches of
/// four bytes (offset, offset, offset, value).
fn corrupt(original: &[u8], data: &[u8]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    let Some((head, patches)) = data.split_first_chunk::<2>() else { return bytes };
    let cut = usize::from(u16::from_le_bytes(*head));
    if cut % 4 == 1 {
        bytes.truncate(cut * 7 % (original.len() + 1));
    }
    for p in patches.chunks_exact(4) {
        if bytes.is_empty() {
            break;
        }
        let at = (usize::from(p[0]) | usize::from(p[1]) << 8 | usize::from(p[2]) << 16) % bytes.len();
        bytes[at] = p[3];
    }
    bytes
}

/// A corrupted index file or clue file (the first byte picks which). Opening checks only the
/// structure, as the server does; whatever opens must answer searches, lookups and listings
/// without panicking or reading outside the file.
pub fn data_files(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let originals = originals();
    let en = Language::english();
    let path: PathBuf = originals.dir.path().join(format!("corrupt-{}", std::process::id()));
    if selector & 1 == 0 {
        std::fs::write(&path, corrupt(&originals.index, rest)).expect("write");
        let Ok(index) = crossword_index::Index::open(&path, en, crossword_index::Verify::Structure) else { return };
        for text in ["E_T", "____", "S?R?", "A", "_________", "ETAOINSHR"] {
            if let Ok(pattern) = index.pattern(text) {
                let _ = index.search(&pattern, u32::from(selector >> 1) % 100, 50);
            }
        }
        for len in 0..=24 {
            let _ = index.count_of_length(len);
            let _ = index.scores_of_length(len);
            for rank in [0, 1, 7, 59, u32::MAX] {
                let _ = index.entry(len, rank);
                let _ = index.entry_cells(len, rank);
            }
            for pos in 0..len.min(24) {
                for cell in 0..3u16 {
                    let _ = index.postings_with_cardinality(len, pos, cell);
                }
                let _ = index.position_postings(len, pos).count();
            }
        }
        let _ = index.scores(["EAT", "TOE", "SHRDLU"]);
        let _ = index.locate("ETAOI");
        let _ = index.meta();
    } else {
        std::fs::write(&path, corrupt(&originals.clues, rest)).expect("write");
        let Ok(base) = crossword_clues::ClueBase::open(&path, en, crossword_clues::Verify::Structure) else { return };
        for answer in ["EAT", "ETAOI", "nothing", ""] {
            let _ = base.records(answer).count();
            let _ = base.clues(answer).count();
        }
        let _ = base.answers().take(200).count();
        let _ = base.meta();
    }
}

/// A compose intent as JSON. Parsing never panics, and an accepted intent, written back as
/// JSON, parses to the same intent.
pub fn compose_intent(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let Ok((intent, _report)) = covers_engine::intent::parse(&value) else { return };
    let again = intent.to_json();
    let (reparsed, _) = covers_engine::intent::parse(&again).expect("a written intent parses again");
    assert_eq!(reparsed.to_json(), again);
}

/// An uploaded image. Cleaning never panics, never decodes past the limits (a small file that
/// claims a huge bitmap is refused before decoding), and what it keeps is a well-formed image
/// of the sizes it reports, with a preview no larger than the preview side.
pub fn upload_images(data: &[u8]) {
    use covers_engine::upload::{clean, MAX_PIXELS, MAX_SIDE, PREVIEW_SIDE};
    let Ok(cleaned) = clean(data) else { return };
    let (w, h) = (cleaned.image.width, cleaned.image.height);
    assert!(w >= 1 && h >= 1 && w <= MAX_SIDE && h <= MAX_SIDE && u64::from(w) * u64::from(h) <= MAX_PIXELS);
    assert!(cleaned.preview.width <= PREVIEW_SIDE && cleaned.preview.height <= PREVIEW_SIDE);
    let header = covers_engine::image::read(cleaned.image.bytes.clone()).expect("the kept image reads");
    assert_eq!((header.width, header.height), (w, h));
    let again = clean(&cleaned.image.bytes).expect("a cleaned image is accepted again");
    assert_eq!((again.image.width, again.image.height), (w, h));
}

#[cfg(test)]
mod replay {
    //! Every kept corpus input, through its target.

    fn replay(target: &str, check: fn(&[u8])) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "no corpus for {target}");
        for input in inputs {
            let bytes = std::fs::read(&input).unwrap();
            if let Err(panic) = std::panic::catch_unwind(|| check(&bytes)) {
                std::panic::resume_unwind(Box::new(format!("{}: {panic:?}", input.display())));
            }
        }
    }

    #[test]
    fn grid() {
        replay("grid", super::grid);
    }

    #[test]
    fn normalize() {
        replay("normalize", super::normalize);
    }

    #[test]
    fn puzzle_files() {
        replay("puzzle_files", super::puzzle_files);
    }

    #[test]
    fn data_files() {
        replay("data_files", super::data_files);
    }

    #[test]
    fn compose_intent() {
        replay("compose_intent", super::compose_intent);
    }

    #[test]
    fn upload_images() {
        replay("upload_images", super::upload_images);
    }

    #[test]
    fn request_bodies() {
        replay("request_bodies", super::request_bodies);
    }
}
