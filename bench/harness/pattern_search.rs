//! Pattern search benchmark: the mapped index against a naive linear scan of the same entries,
//! in one run. Prints a Markdown report (figures quoted in `bench/README.md`).
//!
//! Run: `cargo bench --bench pattern_search` (needs `indexes/en.cwi`, built by
//! `cargo run --release -p indexbuild -- build --lang en`; set `CROSSWORD_INDEX_DIR` to use
//! another folder, `BENCH_LANG` for another language, `BENCH_QUERIES` for the query count).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossword_index::{Index, Pattern, Verify};
use crossword_lang::Language;
use crossword_service::indexes::IndexManager;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const LIMIT: usize = 50;

/// A small deterministic generator (xorshift64*), so every run uses the same queries.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let dir = PathBuf::from(std::env::var("CROSSWORD_INDEX_DIR").unwrap_or_else(|_| "indexes".into()));
    let code = std::env::var("BENCH_LANG").unwrap_or_else(|_| "en".into());
    let queries: usize = std::env::var("BENCH_QUERIES").ok().and_then(|q| q.parse().ok()).unwrap_or(20_000);
    let language = Language::from_code(&code).expect("BENCH_LANG is not a language code");
    let path = dir.join(format!("{code}.cwi"));
    if !path.is_file() {
        eprintln!(
            "{} not found: build it with `cargo run --release -p indexbuild -- build --lang {code}`",
            path.display()
        );
        std::process::exit(1);
    }
    let loading = Loading::measure(&dir, &path, language);
    let index = Index::open(&path, language, Verify::Structure).unwrap();
    let patterns = patterns(&index, queries);

    // The first pass pages the index in from the page cache (or disk): reported apart.
    let cold = time_all(&|p| index.search(p, 0, LIMIT).len(), &patterns);
    let words = time_all(&|p| index.search(p, 0, LIMIT).len(), &patterns);
    let ranks = std::cell::RefCell::new(Vec::new());
    let rank_only = time_all(
        &|p| {
            let mut out = ranks.borrow_mut();
            index.search_ranks(p, 0, LIMIT, &mut out);
            out.len()
        },
        &patterns,
    );
    let rss_queried = rss_kib();

    let scan = NaiveScan::of(&index);
    // Correctness first: both must agree on every query.
    for p in patterns.iter().take(2_000) {
        let got: Vec<&str> = index.search(p, 0, LIMIT).iter().map(|h| h.word).collect();
        assert_eq!(got, scan.search(p), "index and scan disagree on {p:?}");
    }
    let naive_sample = &patterns[..patterns.len().min(2_000)];
    let naive = time_all(&|p| scan.search(p).len(), naive_sample);

    println!("## Pattern search, {code} ({} entries, limit {LIMIT})\n", index.len());
    println!("| engine | queries | queries/s | p50 | p99 |");
    println!("|---|---:|---:|---:|---:|");
    for (name, run) in [
        ("mapped index, first pass (pages faulted in)", &cold),
        ("mapped index, words and scores", &words),
        ("mapped index, ranks only (what the solver uses)", &rank_only),
        ("naive scan", &naive),
    ] {
        let (q, p50, p99) = (run.per_second(), run.percentile(0.5), run.percentile(0.99));
        println!("| {name} | {} | {q:.0} | {p50:.2?} | {p99:.2?} |", run.each.len());
    }
    println!(
        "\nIndex / scan throughput ratio: **{:.0}x**; p50 ratio {:.0}x, p99 ratio {:.0}x.\n",
        words.per_second() / naive.per_second(),
        naive.percentile(0.5).as_secs_f64() / words.percentile(0.5).as_secs_f64(),
        naive.percentile(0.99).as_secs_f64() / words.percentile(0.99).as_secs_f64()
    );
    loading.print(patterns.len(), rss_queried);
    print_index_sizes(&dir);
}

/// Per-query times (sorted) and the whole run's time.
struct Timed {
    each: Vec<Duration>,
    total: Duration,
}

impl Timed {
    fn per_second(&self) -> f64 {
        self.each.len() as f64 / self.total.as_secs_f64()
    }

    fn percentile(&self, p: f64) -> Duration {
        percentile(&self.each, p)
    }
}

fn time_all(f: &dyn Fn(&Pattern) -> usize, ps: &[Pattern]) -> Timed {
    let mut each = Vec::with_capacity(ps.len());
    let start = Instant::now();
    for p in ps {
        let t = Instant::now();
        black_box(f(p));
        each.push(t.elapsed());
    }
    let total = start.elapsed();
    each.sort();
    Timed { each, total }
}

/// Cold-load figures: map and validate (what the manager does on first use), the one-time
/// install from the compressed file, and resident memory around them.
struct Loading {
    opens: Vec<Duration>,
    install: Option<Duration>,
    rss_before: u64,
    rss_loaded: u64,
}

impl Loading {
    fn measure(dir: &std::path::Path, path: &std::path::Path, language: Language) -> Loading {
        let code = language.code();
        let rss_before = rss_kib();
        let mut opens = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            black_box(Index::open(path, language, Verify::Structure).unwrap());
            opens.push(t.elapsed());
        }
        opens.sort();
        let packed = dir.join(format!("{code}.cwi.zst"));
        let install = packed.is_file().then(|| {
            let tmp = tempfile::tempdir().unwrap();
            std::fs::copy(&packed, tmp.path().join(format!("{code}.cwi.zst"))).unwrap();
            let manager = IndexManager::new(tmp.path(), u64::MAX);
            let t = Instant::now();
            manager.get(language).unwrap();
            t.elapsed()
        });
        let kept = Index::open(path, language, Verify::Structure).unwrap();
        let rss_loaded = rss_kib();
        drop(kept);
        Loading { opens, install, rss_before, rss_loaded }
    }

    fn print(&self, queries: usize, rss_queried: u64) {
        println!("## Loading\n");
        println!("| figure | value |");
        println!("|---|---:|");
        println!("| open (map + validate), median of 20 | {:.2?} |", percentile(&self.opens, 0.5));
        if let Some(t) = self.install {
            println!("| first use from `.cwi.zst` (decompress, checksum, map) | {t:.2?} |");
        }
        println!("| RSS before loading | {} MiB |", self.rss_before / 1024);
        println!("| RSS after opening the index | {} MiB |", self.rss_loaded / 1024);
        println!("| RSS after {queries} index queries | {} MiB |", rss_queried / 1024);
    }
}

/// Queries: real entries of length 3 to 15 with 30-60% of their cells kept, the rest unknown,
/// as a constructor's partly filled slot looks.
fn patterns(index: &Index, queries: usize) -> Vec<Pattern> {
    let language = index.language();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let total: usize = (3..=15).map(|l| index.count_of_length(l)).sum();
    let mut patterns = Vec::with_capacity(queries);
    while patterns.len() < queries {
        let (mut pick, mut len) = (rng.below(total), 3);
        while pick >= index.count_of_length(len) {
            pick -= index.count_of_length(len);
            len += 1;
        }
        let word = index.entry(len, pick as u32).unwrap().word;
        let keep = 30 + rng.below(31);
        let p: Vec<Option<String>> =
            language.split_cells(word).iter().map(|c| (rng.below(100) < keep).then(|| (*c).to_owned())).collect();
        patterns.push(Pattern::from_cells(p));
    }
    patterns
}

/// The naive baseline: every entry with its cells, best score first, scanned in order.
struct NaiveScan {
    entries: Vec<(Vec<String>, String, u8)>,
}

impl NaiveScan {
    fn of(index: &Index) -> NaiveScan {
        let language = index.language();
        let mut entries: Vec<(Vec<String>, String, u8)> = Vec::with_capacity(index.len());
        for len in 1..=23 {
            for rank in 0..index.count_of_length(len) as u32 {
                let hit = index.entry(len, rank).unwrap();
                let cells = language.split_cells(hit.word).into_iter().map(str::to_owned).collect();
                entries.push((cells, hit.word.to_owned(), hit.score));
            }
        }
        entries.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)));
        NaiveScan { entries }
    }

    fn search(&self, pattern: &Pattern) -> Vec<&str> {
        let mut out = Vec::new();
        for (cells, word, _) in &self.entries {
            let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
            if pattern.matches(&refs) {
                out.push(word.as_str());
                if out.len() == LIMIT {
                    break;
                }
            }
        }
        out
    }
}

fn print_index_sizes(dir: &std::path::Path) {
    println!("\n## Index sizes\n");
    println!("| lang | entries | mapped MB | zstd MB |");
    println!("|---|---:|---:|---:|");
    for l in Language::all() {
        let (plain, zst) = (dir.join(format!("{}.cwi", l.code())), dir.join(format!("{}.cwi.zst", l.code())));
        let size = |p: &PathBuf| std::fs::metadata(p).map(|m| m.len() as f64 / 1e6).ok();
        if let (Some(a), Some(b)) = (size(&plain), size(&zst)) {
            let n = Index::open(&plain, l, Verify::Structure).map(|i| i.len()).unwrap_or(0);
            println!("| {} | {n} | {a:.1} | {b:.1} |", l.code());
        }
    }
}
