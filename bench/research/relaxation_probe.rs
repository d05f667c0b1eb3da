//! A research harness (not a test, not part of the service): runs the complete search
//! (`try_hard`, restarts keep the failure weights) on a **relaxation** of a grid, i.e. on a
//! subset of its slots.
//!
//! A relaxation's fill says nothing about the whole grid, but a relaxation with no fill proves
//! the whole grid has none; growing the subset shows where a grid gets hard. `bench/README.md`
//! and `bench/research/VERDICT.md` quote its figures. Run it with
//!
//! ```text
//! RELAX_GRID=path/to/15tl_gen_64w.txt RELAX_ROWS=6 RELAX_ACROSS=7 RELAX_SECS=400 \
//!   cargo run --release --features research --example relaxation_probe
//! ```
//!
//! * `RELAX_ROWS=R`: the slots whose first cell is in rows 0..=R (default: every slot);
//! * `RELAX_ACROSS=a,b`: also the across slots of these rows;
//! * `RELAX_BOX=lo,hi`: instead, the slots with a cell in rows lo..=hi;
//! * `RELAX_INDEX` (default `target/bench-indexes/stwl/en.cwi`), `RELAX_MIN` (default 50),
//!   `RELAX_SECS` (default 60).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossword_fill::research::search_slots;
use crossword_fill::{Grid, Slot};
use crossword_index::{Index, Verify};
use crossword_lang::Language;

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

fn numbers(text: &str) -> Vec<usize> {
    text.split(',').filter_map(|x| x.trim().parse().ok()).collect()
}

/// Whether `slot` (cells row-major in an `n`-wide grid) is in the chosen relaxation.
fn chosen(slot: &Slot, n: usize) -> bool {
    let rows: Vec<usize> = slot.cells.iter().map(|c| c / n).collect();
    let first = rows.iter().copied().min().unwrap_or(0);
    if let Ok(range) = std::env::var("RELAX_BOX") {
        let bounds = numbers(&range);
        let (lo, hi) = (bounds.first().copied().unwrap_or(0), bounds.get(1).copied().unwrap_or(usize::MAX));
        return rows.iter().any(|r| (lo..=hi).contains(r));
    }
    let up_to = std::env::var("RELAX_ROWS").ok().and_then(|r| r.parse().ok()).unwrap_or(usize::MAX);
    let across_row = rows.iter().all(|&r| r == first);
    first <= up_to || (across_row && numbers(&env_or("RELAX_ACROSS", "")).contains(&first))
}

fn main() {
    let grid_path = std::env::var("RELAX_GRID").expect("RELAX_GRID: a grid file");
    let index_path = PathBuf::from(env_or("RELAX_INDEX", "target/bench-indexes/stwl/en.cwi"));
    let min_score: u32 = env_or("RELAX_MIN", "50").parse().expect("RELAX_MIN: a number");
    let secs: u64 = env_or("RELAX_SECS", "60").parse().expect("RELAX_SECS: a number");
    let english = Language::english();
    let index = Index::open(&index_path, english, Verify::Structure).expect("the index opens");
    let text = std::fs::read_to_string(&grid_path).expect("the grid file reads");
    let rows: Vec<String> = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_uppercase).collect();
    let grid = Grid::parse(english, &rows).expect("the grid parses");
    let n = grid.size();
    let all = grid.slots(english.spec().min_slot_length as usize);
    let slots: Vec<Slot> = all.iter().filter(|s| chosen(s, n)).cloned().collect();
    let started = Instant::now();
    let report = search_slots(&index, &grid, &slots, min_score, started + Duration::from_secs(secs));
    println!(
        "relaxation: {} of {} slots, {}, {} nodes, {} restarts, {:.2} s",
        slots.len(),
        all.len(),
        report.outcome,
        report.nodes,
        report.restarts,
        started.elapsed().as_secs_f64()
    );
}
