//! Engine tests on word lists the tests build themselves.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crossword_index::{Index, IndexWriter, Verify};
use crossword_lang::Language;

fn index_of(code: &str, words: &[(&str, u8)]) -> (tempfile::TempDir, Index) {
    let language = Language::from_code(code).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::new(language);
    for (t, s) in words {
        w.insert(&language.normalize(t).unwrap(), *s).unwrap();
    }
    let path = dir.path().join("x.cwi");
    w.write_to(&path).unwrap();
    let index = Index::open(&path, language, Verify::Checksum).unwrap();
    (dir, index)
}

fn opts(seconds: f64) -> FillOptions {
    FillOptions { max_time: Duration::from_secs_f64(seconds), ..FillOptions::default() }
}

fn run(index: &Index, rows: &[&str], options: &FillOptions) -> FillResult {
    let grid = Grid::parse(index.language(), rows).unwrap();
    fill(index, &grid, options, &AtomicBool::new(false), &mut |_| {})
}

/// Every complete entry is in the list, none repeats, and the given letters are kept.
fn check_fill(index: &Index, given: &[&str], result: &FillResult) {
    let language = index.language();
    let min = language.spec().min_slot_length as usize;
    let grid = &result.grid;
    let mut seen = HashSet::new();
    for slot in grid.slots(min) {
        let text = grid.slot_text(&slot).expect("complete");
        assert!(index.score(&text).is_some(), "{text} is not in the list");
        assert!(seen.insert(text.clone()), "{text} used twice");
    }
    let original = Grid::parse(language, given).unwrap();
    for (a, b) in original.squares().iter().zip(grid.squares()) {
        if let Square::Letter(l) = a {
            assert_eq!(b, &Square::Letter(l.clone()), "a given letter changed");
        }
        if *a == Square::Block {
            assert_eq!(*b, Square::Block);
        }
    }
}

/// The six entries of a 3x3 square whose rows are `rows` (across and down, all distinct).
fn square_words(rows: [&str; 3]) -> Vec<String> {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| unicode_segmentation::UnicodeSegmentation::graphemes(*r, true).map(str::to_owned).collect())
        .collect();
    let mut out: Vec<String> = cells.iter().map(|r| r.concat()).collect();
    for c in 0..3 {
        out.push(cells.iter().map(|row| row[c].as_str()).collect());
    }
    out
}

#[test]
fn fills_completely_from_the_list() {
    let words = square_words(["CAB", "ODE", "WET"]);
    let mut list: Vec<(&str, u8)> = words.iter().map(|w| (w.as_str(), 60)).collect();
    list.extend([("XYZ", 10), ("CAT", 80), ("QQQ", 5)]);
    let (_d, index) = index_of("en", &list);
    let given = ["c..", "...", "..."];
    let r = run(&index, &given, &opts(5.0));
    assert_eq!((r.slots_filled, r.slots_total, r.reason), (6, 6, None));
    check_fill(&index, &given, &r);
    assert_eq!(r.quality.scored, 6);
    assert!(r.quality.rough.is_empty());
}

#[test]
fn goes_below_the_goal_and_reports_rough_entries() {
    let words = square_words(["CAB", "ODE", "WET"]);
    let list: Vec<(&str, u8)> =
        words.iter().enumerate().map(|(i, w)| (w.as_str(), if i == 0 { 20 } else { 60 })).collect();
    let (_d, index) = index_of("en", &list);
    let r = run(&index, &["...", "...", "..."], &opts(5.0));
    assert_eq!(r.slots_filled, 6);
    assert_eq!(r.stats.min_score_used, 0);
    let rough = &r.quality.rough;
    assert_eq!((rough.len(), rough[0].score, rough[0].number), (1, 20, 1), "{rough:?}");
    // Strict mode refuses instead.
    let strict = run(&index, &["...", "...", "..."], &FillOptions { strict: true, ..opts(5.0) });
    assert_eq!(strict.reason, Some(Reason::StoppedEarly));
}

#[test]
fn impossible_grids_are_proved_quickly() {
    let (_d, index) = index_of("en", &[("CAT", 60), ("DOG", 60), ("EMU", 60)]);
    let started = Instant::now();
    let r = run(&index, &["...", "...", "..."], &opts(20.0));
    assert_eq!(r.reason, Some(Reason::StoppedEarly));
    assert!(r.stats.proved_impossible);
    // Proved, not timed out: well inside the 20 s budget even on a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(10), "proved in {:?}", started.elapsed());
    assert_eq!(r.grid.to_rows(), ["...", "...", "..."]);
}

#[test]
fn theme_entries_and_fixed_letters_are_kept_even_when_unknown() {
    let words = square_words(["ZZZ", "ODE", "WET"]);
    let list: Vec<(&str, u8)> = words.iter().skip(1).map(|w| (w.as_str(), 60)).collect();
    let (_d, index) = index_of("en", &list);
    // ZZZ is not in the list: as a complete pre-placed entry it stays and is not scored.
    let given = ["zzz", "...", "..."];
    let r = run(&index, &given, &opts(5.0));
    assert_eq!(r.grid.to_rows()[0], "ZZZ");
    assert_eq!(r.quality.scored, 5);
}

#[test]
fn time_out_and_cancel_reasons() {
    let words = square_words(["CAB", "ODE", "WET"]);
    let list: Vec<(&str, u8)> = words.iter().map(|w| (w.as_str(), 60)).collect();
    let (_d, index) = index_of("en", &list);
    let grid = Grid::parse(index.language(), &["...", "...", "..."]).unwrap();
    let r = fill(
        &index,
        &grid,
        &FillOptions { max_time: Duration::ZERO, ..opts(0.0) },
        &AtomicBool::new(false),
        &mut |_| {},
    );
    assert_eq!(r.reason, Some(Reason::OutOfTime));
    let r = fill(&index, &grid, &opts(5.0), &AtomicBool::new(true), &mut |_| {});
    assert_eq!(r.reason, Some(Reason::Cancelled));
}

/// A list that keeps the solver busy: random strings over four letters, no pruning at the root.
fn busy_list() -> (tempfile::TempDir, Index) {
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut words = Vec::new();
    for _ in 0..3000 {
        let w: String = (0..9)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (b'A' + (rng % 4) as u8) as char
            })
            .collect();
        words.push(w);
    }
    let list: Vec<(&str, u8)> = words.iter().map(|w| (w.as_str(), 50)).collect();
    index_of("en", &list)
}

#[test]
fn a_cancel_stops_the_search_long_before_its_budget() {
    let (_d, index) = busy_list();
    let index = Arc::new(index);
    let grid = Grid::parse(index.language(), &vec![".........".to_owned(); 9]).unwrap();
    let cancel = Arc::new(AtomicBool::new(false));
    let (i2, c2) = (index.clone(), cancel.clone());
    let progress_seen = Arc::new(AtomicBool::new(false));
    let p2 = progress_seen.clone();
    let worker = std::thread::spawn(move || {
        let r = fill(&i2, &grid, &opts(20.0), &c2, &mut |_| p2.store(true, Ordering::Relaxed));
        (r, Instant::now())
    });
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    cancel.store(true, Ordering::Relaxed);
    let (result, stopped) = worker.join().unwrap();
    let latency = stopped.duration_since(asked);
    // The search had 20 s left. (The flag is read every 64 nodes: milliseconds on an idle
    // machine; the bound leaves room for a shared, loaded one.)
    assert!(latency < Duration::from_secs(5), "stopped {latency:?} after the cancel");
    // Stopped short of complete, so it says it was cancelled, with whatever it had placed.
    assert!(result.slots_filled < result.slots_total);
    assert_eq!(result.reason, Some(Reason::Cancelled));
    assert!(progress_seen.load(Ordering::Relaxed), "progress snapshots arrive while searching");
}

#[test]
fn the_same_seed_gives_the_same_fill() {
    let mut list: Vec<(String, u8)> = Vec::new();
    for a in ["CAB", "COB", "CUB"] {
        for b in ["ODE", "ADE", "IDE"] {
            for c in ["WET", "WIT", "WOT"] {
                for w in square_words([a, b, c]) {
                    list.push((w, 60));
                }
            }
        }
    }
    let refs: Vec<(&str, u8)> = list.iter().map(|(w, s)| (w.as_str(), *s)).collect();
    let (_d, index) = index_of("en", &refs);
    let with = |seed| run(&index, &["...", "...", "..."], &FillOptions { seed, ..opts(5.0) }).grid.to_rows();
    assert_eq!(with(Some(7)), with(Some(7)));
    assert_eq!(with(None), with(None));
    // Variety on demand: other seeds reach other fills, even when the first descent succeeds.
    let fills: HashSet<Vec<String>> = (1..=10).map(|s| with(Some(s))).collect();
    assert!(fills.len() > 1, "ten seeds gave one fill");
}

#[test]
fn other_alphabets_fill_with_their_own_cells() {
    let cases: [(&str, [&str; 3]); 5] = [
        ("es", ["AÑO", "MAR", "ASA"]),
        ("de", ["HUT", "OBI", "FEN"]),
        ("ru", ["ЛУК", "ЕЖА", "СОН"]),
        ("he", ["שלו", "ירק", "ספר"]),
        ("hi", ["नमस्ते", "कमला", "सरल"]),
    ];
    for (code, rows) in cases {
        let language = Language::from_code(code).unwrap();
        let normalized: Vec<String> = rows.iter().map(|r| language.normalize(r).unwrap()).collect();
        let cells: Vec<Vec<&str>> = normalized.iter().map(|r| language.split_cells(r)).collect();
        assert!(cells.iter().all(|r| r.len() == 3), "{code}: each fixture row must be three cells");
        let mut words: Vec<String> = normalized.clone();
        for c in 0..3 {
            words.push(cells.iter().map(|row| row[c]).collect());
        }
        let list: Vec<(&str, u8)> = words.iter().map(|w| (w.as_str(), 60)).collect();
        let (_d, index) = index_of(code, &list);
        let r = run(&index, &["...", "...", "..."], &opts(5.0));
        assert_eq!(r.slots_filled, 6, "{code}: {:?}", r.grid.to_rows());
        check_fill(&index, &["...", "...", "..."], &r);
    }
}

#[test]
fn criss_cross_grids_fill_in_cjk() {
    // Cells a b / c . d / . e f: across ab, ef; down ac, df.
    let grid = ["..#", ".#.", "#.."];
    for (code, [ab, ac, ef, df]) in [
        ("ja", ["サク", "サイ", "カメ", "ユメ"]),
        ("zh", ["中国", "中心", "大学", "同学"]),
        ("ko", ["대한", "대학", "민국", "전국"]),
    ] {
        let list = [(ab, 60u8), (ac, 60), (ef, 60), (df, 60)];
        let (_d, index) = index_of(code, &list);
        let r = run(&index, &grid, &opts(5.0));
        assert_eq!((r.slots_filled, r.slots_total), (4, 4), "{code}: {:?}", r.grid.to_rows());
        check_fill(&index, &grid, &r);
    }
}

#[test]
fn polish_trades_weak_entries_for_better_crossing_ones() {
    // CAB/ODE/WET down COW/ADE/BET is complete, but WEN and BEN (70) beat WET and BET (20).
    let words =
        [("cab", 60), ("ode", 60), ("wet", 20), ("cow", 60), ("ade", 60), ("bet", 20), ("wen", 70), ("ben", 70)];
    let (_dir, index) = index_of("en", &words);
    let empty = Grid::parse(index.language(), &["...", "...", "..."]).unwrap();
    let weak = Grid::parse(index.language(), &["CAB", "ODE", "WET"]).unwrap();
    let slots = empty.slots(3);
    let never = AtomicBool::new(false);
    let budget = super::solver::Budget { until: Instant::now() + Duration::from_secs(2), cancel: &never };
    let polished = super::solver::polish(&index, &empty, weak.clone(), &slots, 40, budget, &mut |_| {});
    assert_eq!(polished.to_rows(), ["CAB", "ODE", "WEN"]);
    // Letters the caller gave are never changed: with WET given, nothing can move.
    let given = Grid::parse(index.language(), &["...", "...", "WET"]).unwrap();
    let kept = super::solver::polish(&index, &given, weak, &slots, 40, budget, &mut |_| {});
    assert_eq!(kept.to_rows(), ["CAB", "ODE", "WET"]);
}

#[test]
fn progress_keeps_coming_during_the_polish_phase() {
    // The only square scores 40; a 90 word exists but fits nowhere, so the polish phase runs
    // its full minimum time looking for better fills.
    let mut words: Vec<(String, u8)> = square_words(["CAB", "ODE", "WET"]).into_iter().map(|w| (w, 40)).collect();
    words.push(("ZZZ".into(), 90));
    let refs: Vec<(&str, u8)> = words.iter().map(|(w, s)| (w.as_str(), *s)).collect();
    let (_d, index) = index_of("en", &refs);
    let grid = Grid::parse(index.language(), &["...", "...", "..."]).unwrap();
    let mut complete_snapshots = 0;
    let options = FillOptions { polish_at_least: Duration::from_millis(300), ..opts(5.0) };
    let r = fill(&index, &grid, &options, &AtomicBool::new(false), &mut |p| {
        if p.filled == p.total && p.cells.len() == 9 {
            complete_snapshots += 1;
        }
    });
    assert_eq!(r.slots_filled, 6);
    assert!(r.stats.polish >= Duration::from_millis(250), "polished for {:?}", r.stats.polish);
    assert!(complete_snapshots >= 2, "{complete_snapshots} snapshots while polishing");
}
