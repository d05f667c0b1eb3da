use proptest::prelude::*;

use super::*;
use crossword_lang::Language;

fn lang(code: &str) -> Language {
    Language::from_code(code).unwrap()
}

fn build(language: Language, entries: &[(&str, u8)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::new(language);
    for (t, s) in entries {
        w.insert(&language.normalize(t).unwrap(), *s).unwrap();
    }
    let path = dir.path().join(format!("{}.cwi", language.code()));
    w.write_to(&path).unwrap();
    let index = Index::open(&path, language, Verify::Checksum).unwrap();
    (dir, index)
}

/// The reference answer: scan every entry, keep matches, order by score then text.
fn naive<'a>(
    language: Language,
    entries: &'a [(String, u8)],
    pattern: &Pattern,
    min_score: u32,
    limit: usize,
) -> Vec<(&'a str, u8)> {
    let mut hits: Vec<(&str, u8)> = entries
        .iter()
        .filter(|(t, s)| *s as u32 >= min_score && pattern.matches(&language.split_cells(t)))
        .map(|(t, s)| (t.as_str(), *s))
        .collect();
    hits.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    hits.truncate(limit);
    hits
}

fn words<'a>(hits: &[Hit<'a>]) -> Vec<&'a str> {
    hits.iter().map(|h| h.word).collect()
}

#[test]
fn finds_best_words_first() {
    let en = lang("en");
    let (_d, idx) = build(en, &[("cat", 90), ("cot", 70), ("cut", 80), ("cab", 95), ("act", 60), ("coat", 99)]);
    let p = Pattern::parse(en, "c_t").unwrap();
    assert_eq!(words(&idx.search(&p, 0, 10)), ["CAT", "CUT", "COT"]);
    assert_eq!(words(&idx.search(&p, 75, 10)), ["CAT", "CUT"]);
    assert_eq!(words(&idx.search(&p, 0, 1)), ["CAT"]);
    assert_eq!(words(&idx.search(&Pattern::parse(en, "???").unwrap(), 0, 10)), ["CAB", "CAT", "CUT", "COT", "ACT"]);
    assert_eq!(words(&idx.search(&Pattern::parse(en, "x__").unwrap(), 0, 10)), Vec::<&str>::new());
    assert!(idx.search(&Pattern::parse(en, "c_t").unwrap(), 101, 10).is_empty());
    assert_eq!(idx.score("COAT"), Some(99));
    assert_eq!(idx.score("DOG"), None);
    assert_eq!(idx.len(), 6);
}

#[test]
fn other_scripts() {
    let ru = lang("ru");
    let (_d, idx) = build(ru, &[("луна", 90), ("лиана", 80), ("лина", 50), ("лань", 40)]);
    assert_eq!(words(&idx.search(&Pattern::parse(ru, "Л_НА").unwrap(), 0, 10)), ["ЛУНА", "ЛИНА"]);

    let hi = lang("hi");
    let (_d, idx) = build(hi, &[("क्षमा", 90), ("कमरा", 80), ("पत्र", 70)]);
    assert_eq!(words(&idx.search(&Pattern::parse(hi, "_मा").unwrap(), 0, 10)), ["क्षमा"]);
    assert_eq!(words(&idx.search(&Pattern::parse(hi, "प_").unwrap(), 0, 10)), ["पत्र"]);

    let ja = lang("ja");
    let (_d, idx) = build(ja, &[("さくら", 90), ("サクラ", 10), ("かがみ", 60)]);
    assert_eq!(words(&idx.search(&Pattern::parse(ja, "さ_ら").unwrap(), 0, 10)), ["サクラ"]);
    assert_eq!(idx.score("サクラ"), Some(90), "a repeated entry keeps its best score");
}

#[test]
fn corpus_folds_apply_to_user_text() {
    let zh = lang("zh");
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::new(zh);
    w.insert("国家", 90).unwrap();
    w.insert("龙", 50).unwrap();
    w.fold('國', '国');
    w.fold('龍', '龙');
    let path = dir.path().join("zh.cwi");
    w.write_to(&path).unwrap();
    let idx = Index::open(&path, zh, Verify::Checksum).unwrap();
    assert_eq!(idx.normalize("國家").unwrap(), "国家");
    assert_eq!(words(&idx.search(&idx.pattern("國_").unwrap(), 0, 5)), ["国家"]);
    assert_eq!(idx.scores(["國家", "龍", "猫", "abc"]), [("國家", 90), ("龍", 50)]);
    assert!(matches!(idx.fold("国家"), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn rejects_corrupt_files() {
    let en = lang("en");
    let (dir, _idx) = build(en, &[("cat", 90)]);
    let path = dir.path().join("en.cwi");
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(Index::open(&path, lang("de"), Verify::Structure).is_err(), "wrong language");
    let n = bytes.len();
    bytes[n / 2] ^= 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(Index::open(&path, en, Verify::Checksum), Err(OpenError::Corrupt(_))));
    std::fs::write(&path, &bytes[..n - 8]).unwrap();
    assert!(Index::open(&path, en, Verify::Structure).is_err());
    std::fs::write(&path, b"hello").unwrap();
    assert!(Index::open(&path, en, Verify::Structure).is_err());
}

#[test]
fn every_truncation_and_bit_flip_is_refused_or_harmless() {
    let en = lang("en");
    let entries: Vec<(String, u8)> = (0..300).map(|i| (format!("W{}", to_letters(i)), (i % 101) as u8)).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::new(en);
    for (t, s) in &entries {
        w.insert(t, *s).unwrap();
    }
    let (bytes, _) = w.to_bytes().unwrap();
    let path = dir.path().join("en.cwi");
    for i in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[i] ^= 0x5A;
        std::fs::write(&path, &b).unwrap();
        // Structure checks may accept a flipped data byte; queries must still not panic.
        if let Ok(idx) = Index::open(&path, en, Verify::Structure) {
            for p in ["W_", "WA_", "???", "W_B_"] {
                let _ = idx.search(&Pattern::parse(en, p).unwrap(), 0, 50);
            }
            let _ = idx.score("WAB");
        }
        assert!(Index::open(&path, en, Verify::Checksum).is_err());
    }
}

fn to_letters(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((b'A' + (i % 26) as u8) as char);
        i /= 26;
        if i == 0 {
            return s;
        }
    }
}

fn entry_strategy(alphabet: &'static [&'static str]) -> impl Strategy<Value = Vec<(String, u8)>> {
    prop::collection::vec((prop::collection::vec(prop::sample::select(alphabet), 1..7), 0u8..=100), 1..400)
        .prop_map(|v| v.into_iter().map(|(cells, s)| (cells.concat(), s)).collect())
}

fn pattern_strategy(alphabet: &'static [&'static str]) -> impl Strategy<Value = Vec<Option<String>>> {
    prop::collection::vec(prop::option::weighted(0.4, prop::sample::select(alphabet).prop_map(str::to_owned)), 1..7)
}

fn check_against_naive(
    code: &str,
    entries: Vec<(String, u8)>,
    pattern: Vec<Option<String>>,
    min_score: u32,
    limit: usize,
) -> Result<(), TestCaseError> {
    let language = lang(code);
    let mut w = IndexWriter::new(language);
    for (t, s) in &entries {
        w.insert(t, *s).unwrap();
    }
    // The reference works on the deduplicated list (best score per entry), like the index.
    let deduped: Vec<(String, u8)> = w.entries().map(|(t, s)| (t.to_owned(), s)).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.cwi");
    w.write_to(&path).unwrap();
    let idx = Index::open(&path, language, Verify::Checksum).unwrap();
    let pattern = Pattern::from_cells(pattern);
    let got: Vec<(&str, u8)> = idx.search(&pattern, min_score, limit).iter().map(|h| (h.word, h.score)).collect();
    let want = naive(language, &deduped, &pattern, min_score, limit);
    prop_assert_eq!(got, want);
    for (t, s) in &deduped {
        prop_assert_eq!(idx.score(t), Some(*s));
    }
    Ok(())
}

const SMALL: &[&str] = &["A", "B", "C", "E"];
const HINDI: &[&str] = &["क", "क्ष", "मा", "त्र", "न", "स्ते", "हिं"];
/// One very common cell (stored as bitsets) among many rare ones (stored as lists).
const HANZI: &[&str] = &[
    "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的", "的",
    "的", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "山", "水", "火", "木", "金", "土", "日", "月",
    "人", "口", "手", "足", "目", "耳", "天", "地", "中", "大", "小", "上", "下", "左", "右", "东", "西", "南", "北",
    "子", "女", "王",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn index_answers_like_a_naive_scan(entries in entry_strategy(SMALL), pattern in pattern_strategy(SMALL), min_score in 0u32..110, limit in 1usize..120) {
        check_against_naive("en", entries, pattern, min_score, limit)?;
    }

    #[test]
    fn index_answers_like_a_naive_scan_in_hindi(entries in entry_strategy(HINDI), pattern in pattern_strategy(HINDI), min_score in 0u32..110, limit in 1usize..120) {
        check_against_naive("hi", entries, pattern, min_score, limit)?;
    }

    #[test]
    fn index_answers_like_a_naive_scan_with_sparse_postings(entries in entry_strategy(HANZI), pattern in pattern_strategy(HANZI), min_score in 0u32..110, limit in 1usize..120) {
        check_against_naive("zh", entries, pattern, min_score, limit)?;
    }
}
