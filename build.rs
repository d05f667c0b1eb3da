//! The build script of the `crossword-lang` crate (`src/crossword/lang`), kept at the top of the
//! workspace beside the `corpus/` it reads: turns `corpus/languages.toml` into static Rust
//! tables (`$OUT_DIR/languages.rs`).
//!
//! The language rules live in one data file so that a linguist can change a fold rule without
//! touching code; this script checks that file thoroughly, so a mistake there fails the build
//! with a clear message rather than misbehaving at run time.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    language: Vec<Lang>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Lang {
    code: String,
    name: String,
    native_name: String,
    #[serde(default)]
    rtl: bool,
    #[serde(default)]
    criss_cross_only: bool,
    min_slot_length: u8,
    #[serde(default)]
    puz_exportable: bool,
    cell: String,
    alphabet: String,
    #[serde(default)]
    upper: Option<String>,
    #[serde(default)]
    compat: bool,
    #[serde(default)]
    strip_marks: bool,
    #[serde(default)]
    drop: String,
    #[serde(default)]
    fold: BTreeMap<String, String>,
    score_zipf: [f32; 2],
}

fn main() {
    // The crate sits below the workspace root; find the corpus from its manifest directory.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let path = Path::new(&manifest)
        .ancestors()
        .map(|dir| dir.join("corpus/languages.toml"))
        .find(|p| p.is_file())
        .expect("corpus/languages.toml above the crate");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).expect("read corpus/languages.toml");
    let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("corpus/languages.toml: {e}"));
    let out = generate(&file.language).unwrap_or_else(|e| panic!("corpus/languages.toml: {e}"));
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("languages.rs");
    std::fs::write(dest, out).expect("write languages.rs");
}

fn generate(langs: &[Lang]) -> Result<String, String> {
    if langs.len() != 28 {
        return Err(format!("expected 28 languages, found {}", langs.len()));
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = String::from("/// Every puzzle language, in the contract's order (generated from corpus/languages.toml).\npub static LANGUAGES: &[LanguageSpec] = &[\n");
    for l in langs {
        let ctx = |msg: String| format!("language {}: {msg}", l.code);
        if !seen.insert(l.code.clone()) {
            return Err(ctx("duplicate code".into()));
        }
        if l.code.len() != 2 || !l.code.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(ctx("code must be two lowercase ASCII letters".into()));
        }
        if !(2..=3).contains(&l.min_slot_length) {
            return Err(ctx("min_slot_length must be 2 or 3".into()));
        }
        let (cell, ranges): (&str, Vec<(u32, u32)>) = match l.cell.as_str() {
            "letter" => {
                let chars: Vec<char> = l.alphabet.chars().collect();
                let unique: std::collections::HashSet<_> = chars.iter().collect();
                if unique.len() != chars.len() || chars.is_empty() {
                    return Err(ctx("alphabet is empty or repeats a letter".into()));
                }
                ("Letter", chars.iter().map(|&c| (c as u32, c as u32)).collect())
            }
            kind @ ("akshara" | "kana" | "hanzi" | "hangul") => {
                let mut ranges = Vec::new();
                for part in l.alphabet.split_whitespace() {
                    let mut ends = part.split('-');
                    let (Some(a), Some(b), None) = (ends.next(), ends.next(), ends.next()) else {
                        return Err(ctx(format!("range {part:?} is not START-END")));
                    };
                    let (a, b) = (single_char(a).map_err(&ctx)?, single_char(b).map_err(&ctx)?);
                    if a > b {
                        return Err(ctx(format!("range {part:?} is reversed")));
                    }
                    ranges.push((a as u32, b as u32));
                }
                let kind = match kind {
                    "akshara" => "Akshara",
                    "kana" => "Kana",
                    "hanzi" => "Hanzi",
                    _ => "Hangul",
                };
                (kind, ranges)
            }
            other => return Err(ctx(format!("unknown cell kind {other:?}"))),
        };
        let upper = match l.upper.as_deref() {
            None | Some("unicode") => "Unicode",
            Some("turkish") => "Turkish",
            Some(other) => return Err(ctx(format!("unknown upper rule {other:?}"))),
        };
        let mut fold = String::new();
        for (from, to) in &l.fold {
            single_char(from).map_err(&ctx)?;
            if to.is_empty() {
                return Err(ctx(format!("fold {from:?} maps to nothing; use drop")));
            }
            if l.cell == "letter" {
                if let Some(bad) = to.chars().find(|c| !l.alphabet.contains(*c)) {
                    return Err(ctx(format!("fold {from:?} -> {to:?}: {bad:?} not in alphabet")));
                }
            }
            write!(fold, "({from:?}, {to:?}), ").unwrap();
        }
        let [z40, z60] = l.score_zipf;
        if z40.partial_cmp(&z60) != Some(std::cmp::Ordering::Less) {
            return Err(ctx("score_zipf must be increasing".into()));
        }
        let ranges: String = ranges.iter().map(|(a, b)| format!("({a}, {b}), ")).collect();
        writeln!(
            out,
            "    LanguageSpec {{ code: {:?}, name: {:?}, native_name: {:?}, rtl: {}, criss_cross_only: {}, \
             min_slot_length: {}, puz_exportable: {}, cell: CellKind::{cell}, alphabet: {:?}, \
             ranges: &[{ranges}], upper: UpperRule::{upper}, compat: {}, strip_marks: {}, drop: {:?}, \
             fold: &[{fold}], score_zipf: ({z40:?}, {z60:?}) }},",
            l.code,
            l.name,
            l.native_name,
            l.rtl,
            l.criss_cross_only,
            l.min_slot_length,
            l.puz_exportable,
            if l.cell == "letter" { l.alphabet.as_str() } else { "" },
            l.compat,
            l.strip_marks,
            l.drop,
        )
        .unwrap();
    }
    out.push_str("];\n");
    Ok(out)
}

fn single_char(s: &str) -> Result<char, String> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(format!("{s:?} must be exactly one character")),
    }
}
