//! The `crossword words` command against a fixture index built by the test.

use std::process::Command;

use crossword_index::IndexWriter;
use crossword_lang::Language;

fn fixture(dir: &std::path::Path) {
    for (code, entries) in [
        ("en", &[("CAT", 90u8), ("CUT", 95), ("COT", 50), ("DOG", 80)][..]),
        ("ru", &[("ЛУНА", 90), ("ЛИНА", 60)][..]),
        ("ja", &[("サクラ", 90), ("カメラ", 80)][..]),
    ] {
        let mut w = IndexWriter::new(Language::from_code(code).unwrap());
        for (t, s) in entries {
            w.insert(t, *s).unwrap();
        }
        // Ship English compressed only, to exercise the install-on-first-use path.
        let (bytes, _) = w.to_bytes().unwrap();
        if code == "en" {
            std::fs::write(dir.join("en.cwi.zst"), zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
        } else {
            std::fs::write(dir.join(format!("{code}.cwi")), bytes).unwrap();
        }
    }
}

fn words(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_crossword"))
        .arg("words")
        .args(args)
        .arg("--index-dir")
        .arg(dir)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn prints_best_words_in_several_scripts() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    assert_eq!(words(dir.path(), &["C_T"]).1, "CUT\t95\nCAT\t90\nCOT\t50\n");
    assert_eq!(words(dir.path(), &["c?t", "--min-score", "60", "--limit", "1"]).1, "CUT\t95\n");
    assert_eq!(words(dir.path(), &["Л_НА", "--lang", "ru"]).1, "ЛУНА\t90\nЛИНА\t60\n");
    assert_eq!(words(dir.path(), &["_", "--lang", "ja"]).1, "");
    assert_eq!(words(dir.path(), &["__ら", "--lang", "ja"]).1, "サクラ\t90\nカメラ\t80\n");
    assert_eq!(words(dir.path(), &["_く_", "--lang", "ja"]).1, "サクラ\t90\n");
    let (_, json, _) = words(dir.path(), &["D__", "--json"]);
    assert_eq!(json.trim(), r#"{"words":[{"score":80,"word":"DOG"}]}"#);
}

#[test]
fn reports_bad_input_and_missing_languages() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let (ok, _, err) = words(dir.path(), &["C4T"]);
    assert!(!ok && err.contains("'4'"), "{err}");
    let (ok, _, err) = words(dir.path(), &["C_T", "--lang", "xx"]);
    assert!(!ok && err.contains("unknown language"), "{err}");
    let (ok, _, err) = words(dir.path(), &["C_T", "--lang", "de"]);
    assert!(!ok && err.contains("no index"), "{err}");
    let (ok, _, err) = words(dir.path(), &["________________________"]);
    assert!(!ok && err.contains("1 to 23"), "{err}");
}
