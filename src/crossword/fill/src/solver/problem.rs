//! One search at one quality level: domains, propagation and the backtracking search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::bits::*;
use super::{Progress, PROGRESS_EVERY};
use crate::grid::{Grid, Slot, Square};
use crossword_index::{Index, Postings};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Solved,
    Impossible,
    TimedOut,
    GaveUp,
    Cancelled,
}

enum Dfs {
    Solved,
    Exhausted,
    Budget,
    Stop(Outcome),
}

pub(super) fn count(assignment: &[Option<u32>]) -> usize {
    assignment.iter().filter(|a| a.is_some()).count()
}

/// Scores this close together count as equal when ordering candidates; the fit with the
/// crossing slots decides within a band.
const SCORE_BAND: u8 = 5;

/// Search nodes before the first restart. Short runs that learn failure weights beat long
/// ones on the benchmark's 23x23s (median of 8 seeds: 5,244 nodes against 20,775 with 4,000
/// and growth 1.5).
const FIRST_BUDGET: u64 = 500;
/// Each restart's budget grows by this percentage.
const BUDGET_GROWTH_PERCENT: u64 = 110;

/// Largest random addition to a candidate's fit when the search varies its path (a seed, or
/// after a restart). Fits are sums of natural logs, so 0.5 lets candidates whose crossers keep
/// within a factor of about 1.6 of each other's room trade places; more noise slowed the
/// benchmark's 23x23s down (median of 6 seeds on `23_ht2310`: 0.79 s with 0.5, 0.95 s with 2).
const FIT_NOISE: f32 = 0.5;

/// Scanning a domain beats posting operations below this many candidates.
const SCAN_LIMIT: u32 = 512;

/// Posting operations are used only for alphabets of at most this many cells (one `u64` mask
/// per position); bigger ones (CJK) always scan their domains.
const POSTING_ALPHABET: usize = 64;

/// A length group's posting sets by position and cell id.
type PostingTable<'a> = Vec<Vec<Option<Postings<'a>>>>;

struct Var<'a> {
    len: usize,
    /// The index's cell ids of this length's entries (row-major by rank).
    entries: &'a [u16],
    cells: Vec<usize>,
    /// (position in this slot, other var, position in the other) for each crossing.
    crossings: Vec<(usize, usize, usize)>,
    /// Lowest score allowed.
    floor: u32,
}

/// One search at one quality level.
pub(super) struct Problem<'a> {
    index: &'a Index,
    vars: Vec<Var<'a>>,
    domains: Vec<Bits>,
    counts: Vec<u32>,
    assigned: Vec<Option<u32>>,
    pub(super) best: Vec<Option<u32>>,
    /// Per var, by position, the cells its domain may still hold there (`mask_words` words per
    /// position): a superset of the truth, tightened whenever a support is computed. A crossing
    /// only needs work for cells in this mask that the other side no longer allows.
    masks: Vec<Vec<u64>>,
    mask_words: usize,
    /// Posting sets by length (empty for lengths without variables, or for big alphabets).
    tables: Vec<PostingTable<'a>>,
    /// (var, saved domain, saved masks) to restore on backtrack.
    trail: Vec<(usize, Bits, Vec<u64>)>,
    saved_at: Vec<u32>,
    level: u32,
    root_failed: bool,
    pub(super) nodes: u64,
    pub(super) restarts: u32,
    rng: u64,
    /// A seed was given: shuffle near-ties from the first descent.
    seeded: bool,
    cell_count: usize,
    last_progress: Instant,
    last_improvement: Instant,
    total_slots: usize,
    prefilled_slots: usize,
    /// Reused buffers (no allocation per search node).
    queued: Vec<bool>,
    scratch: Vec<u64>,
    /// Failure weights per slot (dom/wdeg variable ordering); kept across restarts.
    weights: Vec<u64>,
}

/// The open slots of `grid` as variables, with their crossings; the (length, rank) of the
/// complete slots' entries (theme entries and pre-placed words are constraints, not variables,
/// and are not used again); and how many slots were complete.
fn variables<'a>(
    index: &'a Index,
    grid: &Grid,
    slots: &[Slot],
    floors: &[u32],
) -> (Vec<Var<'a>>, Vec<(usize, u32)>, usize) {
    let mut vars = Vec::new();
    let mut taken: Vec<(usize, u32)> = Vec::new();
    let mut prefilled_slots = 0;
    for (slot, &floor) in slots.iter().zip(floors) {
        match grid.slot_text(slot) {
            Some(text) => {
                prefilled_slots += 1;
                if let Some(at) = index.locate(&text) {
                    taken.push(at);
                }
            }
            None => vars.push(Var {
                len: slot.len,
                entries: index.cells_of_length(slot.len),
                cells: slot.cells.clone(),
                crossings: Vec::new(),
                floor,
            }),
        }
    }
    // Crossings between variables, in cell order: the search must not depend on hashing (the
    // same grid and seed give the same fill in every process).
    let mut by_cell: Vec<Vec<(usize, usize)>> = vec![Vec::new(); grid.size() * grid.size()];
    for (v, var) in vars.iter().enumerate() {
        for (p, &cell) in var.cells.iter().enumerate() {
            by_cell[cell].push((v, p));
        }
    }
    for users in &by_cell {
        if let [(a, pa), (b, pb)] = users[..] {
            vars[a].crossings.push((pa, b, pb));
            vars[b].crossings.push((pb, a, pa));
        }
    }
    (vars, taken, prefilled_slots)
}

/// A variable's domain before the search: the ranks at or above its floor, narrowed by the
/// letters already in its cells, without the entries the grid already uses.
fn root_domain(index: &Index, grid: &Grid, var: &Var<'_>, taken: &[(usize, u32)]) -> Bits {
    let scores = index.scores_of_length(var.len);
    let cutoff = scores.partition_point(|&s| s as u32 >= var.floor);
    let mut bits = vec![0u64; index.count_of_length(var.len).div_ceil(64)];
    for (w, word) in bits.iter_mut().enumerate() {
        let lo = w * 64;
        if cutoff >= lo + 64 {
            *word = u64::MAX;
        } else if cutoff > lo {
            *word = (1u64 << (cutoff - lo)) - 1;
        }
    }
    for (p, &cell) in var.cells.iter().enumerate() {
        if let Square::Letter(letter) = &grid.squares()[cell] {
            match index.cell_id(letter).and_then(|id| index.postings(var.len, p, id)) {
                Some(set) => {
                    and_postings(&mut bits, &set, false);
                }
                None => bits.iter_mut().for_each(|w| *w = 0),
            }
        }
    }
    for &(len, rank) in taken {
        if len == var.len {
            clear(&mut bits, rank);
        }
    }
    bits
}

/// Posting sets by length and position, indexed by cell, for the variables' lengths (none for
/// alphabets too big to tabulate).
fn posting_tables<'a>(index: &'a Index, vars: &[Var<'a>]) -> Vec<PostingTable<'a>> {
    let cell_count = index.cell_count();
    let mut tables: Vec<PostingTable<'a>> = Vec::new();
    if cell_count > POSTING_ALPHABET {
        return tables;
    }
    for var in vars {
        if tables.len() <= var.len {
            tables.resize_with(var.len + 1, Vec::new);
        }
        if tables[var.len].is_empty() {
            tables[var.len] = (0..var.len)
                .map(|p| {
                    let mut by_cell = vec![None; cell_count];
                    for (c, set) in index.position_postings(var.len, p) {
                        if let Some(slot) = by_cell.get_mut(c as usize) {
                            *slot = Some(set);
                        }
                    }
                    by_cell
                })
                .collect();
        }
    }
    tables
}

impl<'a> Problem<'a> {
    /// A search for the open slots of `grid` with entries scoring at least `min_score`. With a
    /// `seed`, near-ties are shuffled from the start (variety on demand); without one, only
    /// after a restart.
    pub(super) fn new(index: &'a Index, grid: &Grid, slots: &[Slot], min_score: u32, seed: Option<u64>) -> Problem<'a> {
        Problem::with_floors(index, grid, slots, &vec![min_score; slots.len()], seed)
    }

    /// Like [`Problem::new`] with a score floor per slot (`floors[i]` for `slots[i]`).
    pub(super) fn with_floors(
        index: &'a Index,
        grid: &Grid,
        slots: &[Slot],
        floors: &[u32],
        seed: Option<u64>,
    ) -> Problem<'a> {
        let (vars, taken, prefilled_slots) = variables(index, grid, slots, floors);
        let domains: Vec<Bits> = vars.iter().map(|var| root_domain(index, grid, var, &taken)).collect();
        let root_failed = domains.iter().any(|bits| bits.iter().all(|&w| w == 0));
        let counts = domains.iter().map(|d| popcount(d)).collect();
        let n = vars.len();
        let cell_count = index.cell_count();
        let mask_words = cell_count.div_ceil(64).max(1);
        let masks = vars.iter().map(|var| vec![u64::MAX; var.len * mask_words]).collect();
        let tables = posting_tables(index, &vars);
        Problem {
            index,
            vars,
            domains,
            counts,
            assigned: vec![None; n],
            best: vec![None; n],
            trail: Vec::new(),
            saved_at: vec![u32::MAX; n],
            level: 0,
            root_failed,
            nodes: 0,
            restarts: 0,
            rng: seed.unwrap_or(0) ^ 0x9E37_79B9_7F4A_7C15,
            seeded: seed.is_some(),
            cell_count,
            masks,
            mask_words,
            tables,
            last_progress: Instant::now(),
            last_improvement: Instant::now(),
            total_slots: slots.len(),
            prefilled_slots,
            queued: Vec::new(),
            scratch: Vec::new(),
            weights: vec![1; n],
        }
    }

    /// Whether near-ties are shuffled now.
    fn varies(&self) -> bool {
        self.seeded || self.restarts > 0
    }

    fn random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Saves a domain before its first change at the current level.
    fn save(&mut self, v: usize) {
        if self.saved_at[v] != self.level {
            self.trail.push((v, self.domains[v].clone(), self.masks[v].clone()));
            self.saved_at[v] = self.level;
        }
    }

    /// True when `v`'s domain is better handled entry by entry than with posting sets.
    fn scans(&self, v: usize) -> bool {
        self.counts[v] <= SCAN_LIMIT || self.cell_count > POSTING_ALPHABET
    }

    /// The cells `v` can still put at each position (exact), into `set` (`mask_words` words per
    /// position); tightens `v`'s masks to them.
    fn supports(&mut self, v: usize, set: &mut Vec<u64>) {
        let mw = self.mask_words;
        let var = &self.vars[v];
        set.clear();
        set.resize(var.len * mw, 0);
        if self.scans(v) {
            // One pass over the domain fills every position.
            for r in ones(&self.domains[v]) {
                let Some(cells) = var.entries.get(r as usize * var.len..(r as usize + 1) * var.len) else { continue };
                for (p, &c) in cells.iter().enumerate() {
                    super::bits::set(set, (p * mw * 64) as u32 + c as u32);
                }
            }
        } else {
            // Only the cells the masks still claim; most are confirmed by the first few words.
            for p in 0..var.len {
                let table = &self.tables[var.len][p];
                for c in ones(&self.masks[v][p * mw..(p + 1) * mw]) {
                    if let Some(Some(postings)) = table.get(c as usize) {
                        if intersects(&self.domains[v], postings) {
                            super::bits::set(set, (p * mw * 64) as u32 + c);
                        }
                    }
                }
            }
        }
        if set[..] != self.masks[v][..] {
            self.save(v);
            self.masks[v].copy_from_slice(set);
        }
    }

    /// Removes from `v`'s domain the entries whose cell at `p` is not in `allowed`; true when
    /// the domain changed.
    fn revise(&mut self, v: usize, p: usize, allowed: &[u64]) -> bool {
        let mw = self.mask_words;
        let range = p * mw..(p + 1) * mw;
        // Nothing to do unless the mask holds a cell the other side no longer allows.
        if self.masks[v][range.clone()].iter().zip(allowed).all(|(m, a)| m & !a == 0) {
            return false;
        }
        let len = self.vars[v].len;
        let entries = self.vars[v].entries;
        let in_allowed = |c: u16| super::bits::test(allowed, c as u32);
        self.save(v);
        let mut changed = false;
        if self.scans(v) {
            for w in 0..self.domains[v].len() {
                let word = self.domains[v][w];
                let mut keep = word;
                let mut bits = word;
                while bits != 0 {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    let r = w * 64 + b as usize;
                    if entries.get(r * len + p).is_none_or(|&c| !in_allowed(c)) {
                        keep &= !(1 << b);
                    }
                }
                if keep != word {
                    changed = true;
                    self.domains[v][w] = keep;
                }
            }
        } else {
            // Subtract the posting set of every cell that is claimed but no longer allowed.
            let table = &self.tables[len][p];
            for (w, (&m, &a)) in self.masks[v][range.clone()].iter().zip(allowed).enumerate() {
                let mut gone = m & !a;
                while gone != 0 {
                    let c = w * 64 + gone.trailing_zeros() as usize;
                    gone &= gone - 1;
                    if let Some(Some(postings)) = table.get(c) {
                        changed |= and_postings(&mut self.domains[v], postings, true);
                    }
                }
            }
        }
        for (m, a) in self.masks[v][range].iter_mut().zip(allowed) {
            *m &= a;
        }
        if changed {
            self.counts[v] = popcount(&self.domains[v]);
        }
        changed
    }

    /// AC-3 from the vars in `queue`; false on a wipe-out.
    fn propagate(&mut self, mut queue: Vec<usize>) -> bool {
        let mut queued = std::mem::take(&mut self.queued);
        queued.clear();
        queued.resize(self.vars.len(), false);
        for &v in &queue {
            queued[v] = true;
        }
        let mut allowed = std::mem::take(&mut self.scratch);
        let mut ok = true;
        let mw = self.mask_words;
        'queue: while let Some(v) = queue.pop() {
            queued[v] = false;
            self.supports(v, &mut allowed);
            for k in 0..self.vars[v].crossings.len() {
                let (p, w, q) = self.vars[v].crossings[k];
                if self.assigned[w].is_some() && self.assigned[v].is_some() {
                    continue;
                }
                if self.revise(w, q, &allowed[p * mw..(p + 1) * mw]) {
                    if self.counts[w] == 0 {
                        // dom/wdeg: slots that fail often are tackled earlier next time.
                        self.weights[w] += 1;
                        self.weights[v] += 1;
                        ok = false;
                        break 'queue;
                    }
                    if !queued[w] {
                        queued[w] = true;
                        queue.push(w);
                    }
                }
            }
        }
        self.queued = queued;
        self.scratch = allowed;
        ok
    }

    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let (v, bits, masks) = self.trail.pop().expect("length checked");
            self.domains[v] = bits;
            self.masks[v] = masks;
            self.counts[v] = popcount(&self.domains[v]);
            self.saved_at[v] = u32::MAX;
        }
    }

    /// Assigns `rank` to `v` and propagates; false on a wipe-out (the caller undoes).
    fn assign(&mut self, v: usize, rank: u32) -> bool {
        self.save(v);
        let words = self.domains[v].len();
        self.domains[v] = vec![0; words];
        super::bits::set(&mut self.domains[v], rank);
        self.counts[v] = 1;
        self.assigned[v] = Some(rank);
        let mw = self.mask_words;
        self.masks[v].iter_mut().for_each(|m| *m = 0);
        if let Some(cells) = self.index.entry_cells(self.vars[v].len, rank) {
            for (p, &c) in cells.iter().enumerate() {
                super::bits::set(&mut self.masks[v], (p * mw * 64) as u32 + c as u32);
            }
        }
        let mut queue = vec![v];
        // No entry twice: take it from every other slot of the same length.
        let len = self.vars[v].len;
        for u in 0..self.vars.len() {
            if u != v && self.vars[u].len == len && test(&self.domains[u], rank) {
                self.save(u);
                clear(&mut self.domains[u], rank);
                self.counts[u] -= 1;
                if self.counts[u] == 0 {
                    self.weights[u] += 1;
                    return false;
                }
                queue.push(u);
            }
        }
        self.propagate(queue)
    }

    fn pick(&mut self) -> Option<usize> {
        let mut best: Option<(u64, usize, u64, usize)> = None;
        for v in 0..self.vars.len() {
            if self.assigned[v].is_some() {
                continue;
            }
            let tie = if self.varies() { self.random() } else { 0 };
            // Fewest candidates per unit of failure weight (dom/wdeg), then the longest slot.
            let ratio = ((self.counts[v] as u64) << 16) / self.weights[v];
            let key = (ratio, usize::MAX - self.vars[v].len, tie, v);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map(|b| b.3)
    }

    /// `v`'s candidates in the order to try them: better score band first (scores within
    /// [`SCORE_BAND`] of each other count as equal), and within a band the words that leave the
    /// open crossing slots the most room: the sum over crossings of the log of how many of the
    /// crosser's candidates share the letter (least-constraining value first), plus a little noise
    /// when the search varies its path.
    fn ordered_candidates(&mut self, v: usize) -> Vec<u32> {
        let ranks: Vec<u32> = ones(&self.domains[v]).collect();
        if ranks.len() <= 1 {
            return ranks;
        }
        let mut room: Vec<(usize, Vec<f32>)> = Vec::new();
        let mut tally = vec![0u32; self.cell_count];
        for k in 0..self.vars[v].crossings.len() {
            let (p, w, q) = self.vars[v].crossings[k];
            if self.assigned[w].is_some() {
                continue;
            }
            self.tally(w, q, &mut tally);
            room.push((p, tally.iter().map(|&n| (n.max(1) as f32).ln()).collect()));
        }
        let len = self.vars[v].len;
        let entries = self.vars[v].entries;
        let scores = self.index.scores_of_length(len);
        let vary = self.varies();
        let mut keyed: Vec<(u8, f32, u32)> = ranks
            .into_iter()
            .map(|r| {
                let band = scores.get(r as usize).map_or(0, |s| s / SCORE_BAND);
                let fit: f32 = room
                    .iter()
                    .map(|(p, logs)| {
                        entries.get(r as usize * len + p).and_then(|&c| logs.get(c as usize)).copied().unwrap_or(0.0)
                    })
                    .sum();
                // Variety (a seed, or after a restart): near-equal fits trade places.
                let fit = if vary { fit + FIT_NOISE * (self.random() % 1024) as f32 / 1024.0 } else { fit };
                (band, fit, r)
            })
            .collect();
        keyed.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        keyed.into_iter().map(|k| k.2).collect()
    }

    /// How many of `w`'s candidates hold each cell at position `q`, into `tally`.
    fn tally(&self, w: usize, q: usize, tally: &mut [u32]) {
        tally.iter_mut().for_each(|n| *n = 0);
        let var = &self.vars[w];
        if self.scans(w) {
            for r in ones(&self.domains[w]) {
                if let Some(n) = var.entries.get(r as usize * var.len + q).and_then(|&c| tally.get_mut(c as usize)) {
                    *n += 1;
                }
            }
        } else {
            let mw = self.mask_words;
            for c in ones(&self.masks[w][q * mw..(q + 1) * mw]) {
                if let (Some(Some(set)), Some(n)) = (self.tables[var.len][q].get(c as usize), tally.get_mut(c as usize))
                {
                    *n = count_common(&self.domains[w], set);
                }
            }
        }
    }

    fn dfs(
        &mut self,
        budget: &mut u64,
        level_deadline: Instant,
        cancel: &AtomicBool,
        on_progress: &mut dyn FnMut(&Progress),
        stagnation: Option<Duration>,
    ) -> Dfs {
        let Some(v) = self.pick() else { return Dfs::Solved };
        let candidates = self.ordered_candidates(v);
        let mut cut = false;
        for rank in candidates {
            self.nodes += 1;
            if self.nodes % 64 == 0 {
                if cancel.load(Ordering::Relaxed) {
                    return Dfs::Stop(Outcome::Cancelled);
                }
                let now = Instant::now();
                if now >= level_deadline {
                    return Dfs::Stop(Outcome::TimedOut);
                }
                if stagnation.is_some_and(|s| now.duration_since(self.last_improvement) > s) {
                    return Dfs::Stop(Outcome::GaveUp);
                }
                if now.duration_since(self.last_progress) >= PROGRESS_EVERY {
                    self.last_progress = now;
                    on_progress(&self.progress());
                }
            }
            if *budget == 0 {
                return Dfs::Budget;
            }
            *budget -= 1;
            let mark = self.trail.len();
            self.level += 1;
            if self.assign(v, rank) {
                if count(&self.assigned) > count(&self.best) {
                    self.best = self.assigned.clone();
                    self.last_improvement = Instant::now();
                }
                match self.dfs(budget, level_deadline, cancel, on_progress, stagnation) {
                    Dfs::Solved => return Dfs::Solved,
                    Dfs::Exhausted => {}
                    Dfs::Budget => cut = true,
                    stop @ Dfs::Stop(_) => {
                        self.assigned[v] = None;
                        self.undo_to(mark);
                        self.level -= 1;
                        return stop;
                    }
                }
            }
            self.assigned[v] = None;
            self.undo_to(mark);
            self.level -= 1;
            if cut {
                return Dfs::Budget;
            }
        }
        Dfs::Exhausted
    }

    pub(super) fn solve(
        &mut self,
        level_deadline: Instant,
        try_hard: bool,
        cancel: &AtomicBool,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> Outcome {
        if self.root_failed || !self.propagate((0..self.vars.len()).collect()) {
            return Outcome::Impossible;
        }
        if cancel.load(Ordering::Relaxed) {
            return Outcome::Cancelled;
        }
        if Instant::now() >= level_deadline {
            return Outcome::TimedOut;
        }
        // Root propagation is permanent for this level.
        self.trail.clear();
        self.saved_at.iter_mut().for_each(|s| *s = u32::MAX);
        let stagnation =
            (!try_hard).then(|| (level_deadline - Instant::now()).mul_f64(0.5).max(Duration::from_secs(2)));
        let mut budget_size = FIRST_BUDGET;
        loop {
            let mut budget = budget_size;
            self.last_improvement = Instant::now();
            match self.dfs(&mut budget, level_deadline, cancel, on_progress, stagnation) {
                Dfs::Solved => {
                    self.best = self.assigned.clone();
                    return Outcome::Solved;
                }
                Dfs::Exhausted => return Outcome::Impossible,
                Dfs::Budget => {
                    self.restarts += 1;
                    budget_size = (budget_size * BUDGET_GROWTH_PERCENT / 100).max(budget_size + 1);
                }
                Dfs::Stop(outcome) => return outcome,
            }
        }
    }

    fn progress(&self) -> Progress {
        let mut cells = Vec::new();
        for (v, a) in self.assigned.iter().enumerate() {
            if let Some(rank) = a {
                if let Some(ids) = self.index.entry_cells(self.vars[v].len, *rank) {
                    for (&cell, &id) in self.vars[v].cells.iter().zip(ids) {
                        if let Some(text) = self.index.cell(id) {
                            cells.push((cell, text.to_owned()));
                        }
                    }
                }
            }
        }
        cells.sort_unstable_by_key(|c| c.0);
        cells.dedup_by_key(|c| c.0);
        Progress { filled: self.prefilled_slots + count(&self.assigned), total: self.total_slots, cells }
    }

    /// Writes an assignment into a grid.
    pub(super) fn write(&self, assignment: &[Option<u32>], grid: &mut Grid) {
        for (v, a) in assignment.iter().enumerate() {
            let Some(rank) = a else { continue };
            let Some(ids) = self.index.entry_cells(self.vars[v].len, *rank) else { continue };
            for (&cell, &id) in self.vars[v].cells.iter().zip(ids) {
                if let Some(text) = self.index.cell(id) {
                    grid.set(cell, Square::Letter(text.to_owned()));
                }
            }
        }
    }
}
