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

/// The four languages added after the first 24: search folds like the language, a grid fills,
/// and Finnish keeps its own letters apart (SÄÄ is not SAA).
#[test]
fn catalan_greek_bulgarian_and_finnish_search_and_fill() {
    let dir = tempfile::tempdir().unwrap();
    // Each language: words for the folds, and a 3x3 square (its rows, then its columns; an
    // entry appears once in a grid, so rows and columns differ).
    let cases: [(&str, &[&str], [&str; 6]); 4] = [
        ("ca", &["col·lecció", "plaça"], ["CAP", "ALE", "SOL", "CAS", "ALO", "PEL"]),
        ("el", &["λόγος", "ώρα"], ["ΑΛΣ", "ΡΟΔ", "ΚΥΩ", "ΑΡΚ", "ΛΟΥ", "ΣΔΩ"]),
        ("bg", &["юнак", "ѝ"], ["ЮГЪ", "ДОМ", "ЯЛЕ", "ЮДЯ", "ГОЛ", "ЪМЕ"]),
        ("fi", &["sää", "saa"], ["SÄÄ", "ÄLY", "ÖRT", "SÄÖ", "ÄLR", "ÄYT"]),
    ];
    for (code, words_of, square) in &cases {
        let language = Language::from_code(code).unwrap();
        let mut w = IndexWriter::new(language);
        for t in words_of.iter().chain(square.iter()) {
            w.insert(&language.normalize(t).unwrap(), 70).unwrap();
        }
        w.write_to(&dir.path().join(format!("{code}.cwi"))).unwrap();
    }
    let d = dir.path();
    assert_eq!(words(d, &["col·lec_ió", "--lang", "ca"]).1, "COLLECCIO\t70\n");
    assert_eq!(words(d, &["PLA_A", "--lang", "ca"]).1, "PLAÇA\t70\n");
    assert_eq!(words(d, &["λόγ_ς", "--lang", "el"]).1, "ΛΟΓΟΣ\t70\n");
    assert_eq!(words(d, &["_ρα", "--lang", "el"]).1, "ΩΡΑ\t70\n");
    assert_eq!(words(d, &["Ю__К", "--lang", "bg"]).1, "ЮНАК\t70\n");
    assert_eq!(words(d, &["S_Ä", "--lang", "fi"]).1, "SÄÄ\t70\n");
    assert_eq!(words(d, &["S_A", "--lang", "fi"]).1, "SAA\t70\n");
    for (code, _, square) in &cases {
        let grid = d.join(format!("{code}.grid"));
        std::fs::write(&grid, "...\n...\n...\n").unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_crossword"))
            .args(["fill", grid.to_str().unwrap(), "--lang", code, "--max-time", "5", "--index-dir"])
            .arg(d)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{code}: {}", String::from_utf8_lossy(&out.stderr));
        let rows = format!("{}\n{}\n{}\n", square[0], square[1], square[2]);
        let columns = format!("{}\n{}\n{}\n", square[3], square[4], square[5]);
        assert!(stdout.starts_with(&rows) || stdout.starts_with(&columns), "{code}: {stdout}");
    }
}

/// `crossword fill --wordlist` keeps the list's index in the cache directory: built on the
/// first run, mapped on the next, built again for a changed list or another language, rebuilt
/// when the cached file is damaged, and whole when two processes build it at once.
#[test]
fn wordlist_indexes_are_cached_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");
    let grid = d.join("square.grid");
    std::fs::write(&grid, "...\n...\n...\n").unwrap();
    let list = d.join("mine.dict");
    std::fs::write(&list, "CAT;90\nAGE;80\nTEN;80\nCAT;90\nCAT;85\nATE;70\nGEN;60\nTAN;55\nEGG;50\n").unwrap();
    let run = |lang: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_crossword"))
            .args(["fill", grid.to_str().unwrap(), "--json", "--lang", lang, "--max-time", "5", "--wordlist"])
            .arg(&list)
            .arg("--cache-dir")
            .arg(&cache)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let cached_files = || -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        files
    };
    assert_eq!(run("en")["stats"]["listCache"], "built");
    let second = run("en");
    assert_eq!(second["stats"]["listCache"], "hit");
    assert_eq!(second["grid"], run("en")["grid"], "the cached index fills the same way");
    assert_eq!(cached_files().len(), 1);
    // Another language or a changed list: another file.
    assert_eq!(run("fr")["stats"]["listCache"], "built");
    std::fs::write(&list, "CAT;90\nAGE;80\nTEN;80\nATE;70\nGEN;60\nTAN;55\nEGG;50\nNAG;40\n").unwrap();
    assert_eq!(run("en")["stats"]["listCache"], "built");
    assert_eq!(run("en")["stats"]["listCache"], "hit");
    assert_eq!(cached_files().len(), 3);
    // A damaged file (a flipped byte, then a truncation) is rejected and rebuilt.
    let newest = cached_files().into_iter().max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap()).unwrap();
    let mut bytes = std::fs::read(&newest).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&newest, &bytes).unwrap();
    assert_eq!(run("en")["stats"]["listCache"], "rebuilt");
    std::fs::write(&newest, &bytes[..bytes.len() / 3]).unwrap();
    assert_eq!(run("en")["stats"]["listCache"], "rebuilt");
    assert_eq!(run("en")["stats"]["listCache"], "hit");
    // Two processes building the same new list at once both succeed and leave one whole file.
    std::fs::write(&list, "CAT;90\nAGE;80\nTEN;80\nATE;70\nGEN;60\nTAN;55\nEGG;50\nNAG;40\nNET;30\n").unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_crossword"))
            .args(["fill", grid.to_str().unwrap(), "--json", "--max-time", "5", "--wordlist"])
            .arg(&list)
            .arg("--cache-dir")
            .arg(&cache)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(["built", "hit"].contains(&v["stats"]["listCache"].as_str().unwrap()), "{v}");
    }
    assert_eq!(run("en")["stats"]["listCache"], "hit");
    let files = cached_files();
    assert_eq!(files.len(), 4, "one file per list and language, no temporary files left: {files:?}");
    assert!(files.iter().all(|f| f.extension().is_some_and(|e| e == "cwi")));
}
