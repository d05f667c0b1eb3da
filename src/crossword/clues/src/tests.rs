use super::*;
use mapped_file::Verify;

fn lang(code: &str) -> Language {
    Language::from_code(code).unwrap()
}

fn write_base(writer: &ClueWriter) -> (tempfile::TempDir, ClueBase) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{}.cwc", writer.language().code()));
    writer.write_to(&path).unwrap();
    let base = ClueBase::open(&path, writer.language(), Verify::Checksum).unwrap();
    (dir, base)
}

#[test]
fn clean_text_trims_capitalizes_and_bounds() {
    assert_eq!(clean_text("  frozen   water ").as_deref(), Some("Frozen water"));
    assert_eq!(clean_text("élan").as_deref(), Some("Élan"));
    assert_eq!(clean_text("   "), None);
    assert_eq!(clean_text(&"x".repeat(150)).map(|t| t.len()), Some(150));
    assert_eq!(clean_text(&"x".repeat(151)), None);
}

#[test]
fn dedupe_key_ignores_case_accents_and_punctuation() {
    assert_eq!(dedupe_key("Frozen  water!"), dedupe_key("frozen water"));
    assert_eq!(dedupe_key("Café au lait"), dedupe_key("cafe au LAIT"));
    assert_ne!(dedupe_key("Frozen water"), dedupe_key("Frozen waters"));
}

#[test]
fn leaks_catches_the_answer_in_its_forms() {
    let en = lang("en");
    assert!(leaks(en, "ICE", "Ice on the pond"));
    assert!(leaks(en, "ICE", "Iced, as tea"));
    assert!(!leaks(en, "ICE", "Price of fame"), "a short answer inside another word is fine");
    assert!(leaks(en, "CREAM", "Ice-creamy"));
    assert!(leaks(en, "ICECREAM", "Ice cream, e.g."));
    assert!(leaks(en, "ICECREAMCONE", "Cream holder"));
    assert!(leaks(en, "CATS", "More than one cat"));
    assert!(!leaks(en, "CATS", "Felines"));
    assert!(!leaks(en, "AT", "Rat catcher"), "two-cell answers only leak at the start of a word");
    assert!(leaks(en, "AT", "Look at that"));
    // Folding: accents and case are compared like answers.
    assert!(leaks(lang("es"), "CAFE", "Un café"));
    assert!(!leaks(lang("es"), "ANO", "Un año"), "Ñ is a letter of its own in Spanish");
    assert!(leaks(lang("de"), "STRASSE", "Die Straße"));
    // Scripts without spaces: the answer inside the text.
    assert!(leaks(lang("ja"), "サクラ", "さくらの花"));
    assert!(!leaks(lang("ja"), "サクラ", "春の花"));
}

#[test]
fn writer_normalizes_answers_and_refuses_bad_clues() {
    let mut w = ClueWriter::new(lang("en"));
    assert_eq!(w.add("ice cream", "frozen dessert", Source::Dictionary, Kind::Sense, 0), AddOutcome::Added);
    assert_eq!(w.add("ICE-CREAM", "Frozen dessert.", Source::Dictionary, Kind::Sense, 0), AddOutcome::Repeat);
    assert_eq!(w.add("icecream", "Ice cream, e.g.", Source::Dictionary, Kind::Sense, 0), AddOutcome::Leaks);
    assert_eq!(w.add("icecream", &"y".repeat(151), Source::Dictionary, Kind::Sense, 0), AddOutcome::BadText);
    assert_eq!(w.add("", "x", Source::Dictionary, Kind::Sense, 0), AddOutcome::BadAnswer);
    assert_eq!(w.add("a".repeat(24).as_str(), "x", Source::Dictionary, Kind::Sense, 0), AddOutcome::BadAnswer);
    assert_eq!(w.add("caf€", "x", Source::Dictionary, Kind::Sense, 0), AddOutcome::BadAnswer);
    assert_eq!(w.clue_count("ICECREAM"), 1);
}

#[test]
fn base_round_trips_and_ranks_by_source() {
    let mut w = ClueWriter::new(lang("en"));
    w.add("ice", "Frozen water", Source::Dictionary, Kind::Sense, 0);
    w.add("ice", "Rink surface", Source::Dictionary, Kind::Synonym, 0);
    w.add("ice", "tree", Source::Dictionary, Kind::Hypernym, 0);
    w.add("ice", "Cube in a drink", Source::Published, Kind::Plain, 3);
    w.add("ice", "Hockey surface", Source::Published, Kind::Plain, 9);
    w.add("ice", "Cube in a drink", Source::Published, Kind::Plain, 2);
    w.add("oak", "Acorn source", Source::Dictionary, Kind::Sense, 0);
    w.meta("note", "test".into());
    let (_dir, base) = write_base(&w);
    assert_eq!((base.answer_count(), base.record_count()), (2, 7 - 1));
    let texts: Vec<(&str, Source, u32)> = base.clues("ICE").map(|c| (c.text, c.source, c.count)).collect();
    assert_eq!(
        texts,
        [
            ("Hockey surface", Source::Published, 9),
            ("Cube in a drink", Source::Published, 5),
            ("Frozen water", Source::Dictionary, 0),
            ("Rink surface", Source::Dictionary, 0),
        ]
    );
    assert_eq!(base.records("ICE").last().map(|r| r.kind), Some(Kind::Hypernym));
    assert_eq!(base.clues("NOPE").count(), 0);
    assert!(base.meta().contains("\"note\""));

    // Rewriting from the base keeps everything and adds to it.
    let mut again = ClueWriter::from_base(&base);
    again.add("ice", "Hockey surface", Source::Published, Kind::Plain, 1);
    let (_dir2, base2) = write_base(&again);
    assert_eq!(base2.clues("ICE").next().map(|c| c.count), Some(10));
    assert_eq!(base2.clues("OAK").count(), 1);
}

#[test]
fn collect_merges_additions_dedupes_and_drops_leaks() {
    let en = lang("en");
    let mut w = ClueWriter::new(en);
    w.add("ice", "Frozen water", Source::Dictionary, Kind::Sense, 0);
    w.add("ice", "Diamonds, slangily", Source::Dictionary, Kind::Synonym, 0);
    w.add("ice", "Cube in a drink", Source::Published, Kind::Plain, 3);
    let (_dir, base) = write_base(&w);
    let additions = vec![
        StoredClue { text: "Rink surface".into(), source: Source::Original, count: 2 },
        StoredClue { text: "Chill out".into(), source: Source::Original, count: 5 },
        StoredClue { text: "frozen WATER".into(), source: Source::Ai, count: 9 },
        StoredClue { text: "Iced over".into(), source: Source::Original, count: 50 },
        StoredClue { text: "Cold cubes".into(), source: Source::Ai, count: 1 },
    ];
    let clues = collect(en, "ICE", Some(&base), &additions, 10);
    let got: Vec<(&str, Source, u32)> = clues.iter().map(|c| (c.text.as_str(), c.source, c.pub_count)).collect();
    assert_eq!(
        got,
        [
            ("Cube in a drink", Source::Published, 3),
            ("Chill out", Source::Original, 0),
            ("Rink surface", Source::Original, 0),
            ("Frozen water", Source::Dictionary, 0),
            ("Diamonds, slangily", Source::Dictionary, 0),
            ("Cold cubes", Source::Ai, 0),
        ]
    );
    assert_eq!(collect(en, "ICE", Some(&base), &additions, 2).len(), 2);
    assert!(collect(en, "NOPE", Some(&base), &[], 10).is_empty());
    assert_eq!(collect(en, "ICE", None, &additions[..1], 10).len(), 1);
}

#[test]
fn corrupt_files_are_refused() {
    let mut w = ClueWriter::new(lang("en"));
    w.add("ice", "Frozen water", Source::Dictionary, Kind::Sense, 0);
    let (dir, _) = write_base(&w);
    let path = dir.path().join("en.cwc");
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    assert!(ClueBase::open(&path, lang("en"), Verify::Checksum).is_err());
    assert!(ClueBase::open(&path, lang("fr"), Verify::Structure).is_err(), "wrong language");
    std::fs::write(&path, &bytes[..40]).unwrap();
    assert!(ClueBase::open(&path, lang("en"), Verify::Structure).is_err());
}

#[test]
fn builtin_generator_composes_new_clues() {
    use generate::{generate, BuiltinGenerator, GenerateRequest};
    let en = lang("en");
    let mut w = ClueWriter::new(en);
    w.add("oak", "A deciduous tree of the beech family, with lobed leaves", Source::Dictionary, Kind::Sense, 0);
    w.add("oak", "Acorn tree", Source::Dictionary, Kind::Synonym, 0);
    w.add("oak", "Hardwood", Source::Dictionary, Kind::Synonym, 0);
    w.add("oak", "tree", Source::Dictionary, Kind::Hypernym, 0);
    w.add("oak", "plant", Source::Dictionary, Kind::Hypernym, 0);
    w.add("oak", "oaken thing", Source::Dictionary, Kind::Hypernym, 0);
    w.add("ice", "___ cream", Source::Dictionary, Kind::Blank, 0);
    w.add("ice", "dry ___", Source::Dictionary, Kind::Blank, 0);
    w.meta(
        "templates",
        serde_json::json!({"kind_of": ["Kind of {}", "Type of {}"], "opposite": ["Opposite of {}"],
            "before": ["Word before {}"], "after": ["{} follower"]}),
    );
    let (_dir, base) = write_base(&w);
    let ice = GenerateRequest { language: en, answer: "ICE", count: 5, base: Some(&base) };
    assert_eq!(generate(&BuiltinGenerator, &ice).unwrap(), ["Word before cream", "Dry follower"]);
    let request = GenerateRequest { language: en, answer: "OAK", count: 10, base: Some(&base) };
    let clues = generate(&BuiltinGenerator, &request).unwrap();
    assert!(clues.contains(&"Kind of tree".to_owned()), "{clues:?}");
    assert!(clues.contains(&"Acorn tree, Hardwood".to_owned()), "{clues:?}");
    assert!(clues.contains(&"A deciduous tree of the beech family".to_owned()), "{clues:?}");
    assert!(!clues.iter().any(|c| c.to_uppercase().contains("OAK")), "no leaks: {clues:?}");
    assert!(!clues.contains(&"Acorn tree".to_owned()), "no copy of a stored clue");
    assert!(clues.contains(&"Hardwood (tree)".to_owned()), "{clues:?}");
    assert!(!clues.contains(&"Acorn tree (tree)".to_owned()), "nothing said twice: {clues:?}");
    let one = generate(&BuiltinGenerator, &GenerateRequest { count: 1, ..request }).unwrap();
    assert_eq!(one, ["Kind of tree"]);
    // Five asked, five distinct: the data has more than five combinations.
    let five = generate(&BuiltinGenerator, &GenerateRequest { count: 5, ..request }).unwrap();
    assert_eq!(five.len(), 5, "{five:?}");
    assert_eq!(five.iter().map(|c| dedupe_key(c)).collect::<std::collections::HashSet<_>>().len(), 5);
    // All of it when more is asked than the data has: nine combinations here.
    assert_eq!(clues.len(), 9, "{clues:?}");
    let none =
        generate(&BuiltinGenerator, &GenerateRequest { language: en, answer: "ZZZ", count: 5, base: Some(&base) });
    assert!(none.unwrap().is_empty());
}
