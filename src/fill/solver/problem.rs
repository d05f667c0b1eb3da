//! One search at one quality level: domains, propagation and the backtracking search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::bits::*;
use super::{Progress, PROGRESS_EVERY};
use crate::fill::grid::{Grid, Slot, Square};
use crate::index::Index;

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

/// Scanning a domain beats posting operations below this many candidates.
const SCAN_LIMIT: u32 = 512;

struct Var<'a> {
    len: usize,
    /// The index's cell ids of this length's entries (row-major by rank).
    entries: &'a [u16],
    cells: Vec<usize>,
    /// (position in this slot, other var, position in the other) for each crossing.
    crossings: Vec<(usize, usize, usize)>,
}

/// One search at one quality level.
pub(super) struct Problem<'a> {
    index: &'a Index,
    vars: Vec<Var<'a>>,
    domains: Vec<Bits>,
    counts: Vec<u32>,
    assigned: Vec<Option<u32>>,
    pub(super) best: Vec<Option<u32>>,
    /// (var, saved domain) to restore on backtrack.
    trail: Vec<(usize, Bits)>,
    saved_at: Vec<u32>,
    level: u32,
    root_failed: bool,
    pub(super) nodes: u64,
    pub(super) restarts: u32,
    rng: u64,
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

impl<'a> Problem<'a> {
    pub(super) fn new(index: &'a Index, grid: &Grid, slots: &[Slot], min_score: u32, seed: u64) -> Problem<'a> {
        // Slots already complete (theme entries, pre-placed words) are constraints, not variables.
        let mut vars = Vec::new();
        let mut taken: Vec<(usize, u32)> = Vec::new();
        let mut prefilled_slots = 0;
        for slot in slots {
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
                }),
            }
        }
        // Crossings between variables, in cell order: the search must not depend on hashing
        // (the same grid and seed give the same fill in every process).
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
        let mut root_failed = false;
        let mut domains = Vec::with_capacity(vars.len());
        for var in &vars {
            let scores = index.scores_of_length(var.len);
            let cutoff = scores.partition_point(|&s| s as u32 >= min_score);
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
            for &(len, rank) in &taken {
                if len == var.len {
                    clear(&mut bits, rank);
                }
            }
            root_failed |= bits.iter().all(|&w| w == 0);
            domains.push(bits);
        }
        let counts = domains.iter().map(|d| popcount(d)).collect();
        let n = vars.len();
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
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            cell_count: index.cell_count(),
            last_progress: Instant::now(),
            last_improvement: Instant::now(),
            total_slots: slots.len(),
            prefilled_slots,
            queued: Vec::new(),
            scratch: Vec::new(),
            weights: vec![1; n],
        }
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
            self.trail.push((v, self.domains[v].clone()));
            self.saved_at[v] = self.level;
        }
    }

    /// The cells `v` can still put at position `p`, into `set`.
    fn support(&self, v: usize, p: usize, set: &mut Vec<u64>) {
        let var = &self.vars[v];
        set.clear();
        set.resize(self.cell_count.div_ceil(64).max(1), 0);
        if self.counts[v] <= SCAN_LIMIT || self.cell_count > 64 {
            for r in ones(&self.domains[v]) {
                if let Some(&c) = var.entries.get(r as usize * var.len + p) {
                    set[c as usize / 64] |= 1 << (c % 64);
                }
            }
        } else {
            for (c, postings) in self.index.position_postings(var.len, p) {
                if intersects(&self.domains[v], &postings) {
                    set[c as usize / 64] |= 1 << (c % 64);
                }
            }
        }
    }

    /// Removes from `v`'s domain the entries whose cell at `p` is not in `allowed`.
    fn revise(&mut self, v: usize, p: usize, allowed: &[u64]) -> bool {
        let len = self.vars[v].len;
        let entries = self.vars[v].entries;
        let index = self.index;
        let in_allowed = |c: u16| allowed[c as usize / 64] >> (c % 64) & 1 == 1;
        if self.counts[v] <= SCAN_LIMIT || self.cell_count > 64 {
            // Word by word: compute the kept bits, and save the domain only if it changes.
            let mut changed = false;
            for w in 0..self.domains[v].len() {
                let word = self.domains[v][w];
                if word == 0 {
                    continue;
                }
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
                    if !changed {
                        self.save(v);
                        changed = true;
                    }
                    self.domains[v][w] = keep;
                }
            }
            if !changed {
                return false;
            }
        } else {
            let mut changed = false;
            for (c, postings) in index.position_postings(len, p) {
                if !in_allowed(c) && intersects(&self.domains[v], &postings) {
                    if !changed {
                        self.save(v);
                        changed = true;
                    }
                    and_postings(&mut self.domains[v], &postings, true);
                }
            }
            if !changed {
                return false;
            }
        }
        self.counts[v] = popcount(&self.domains[v]);
        true
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
        'queue: while let Some(v) = queue.pop() {
            queued[v] = false;
            for k in 0..self.vars[v].crossings.len() {
                let (p, w, q) = self.vars[v].crossings[k];
                if self.assigned[w].is_some() && self.assigned[v].is_some() {
                    continue;
                }
                self.support(v, p, &mut allowed);
                if self.revise(w, q, &allowed) {
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
            let (v, bits) = self.trail.pop().expect("length checked");
            self.domains[v] = bits;
            self.counts[v] = popcount(&self.domains[v]);
            self.saved_at[v] = u32::MAX;
        }
    }

    /// Assigns `rank` to `v` and propagates; false on a wipe-out (the caller undoes).
    fn assign(&mut self, v: usize, rank: u32) -> bool {
        self.save(v);
        let words = self.domains[v].len();
        self.domains[v] = vec![0; words];
        self.domains[v][rank as usize / 64] |= 1 << (rank % 64);
        self.counts[v] = 1;
        self.assigned[v] = Some(rank);
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
            let tie = if self.restarts > 0 { self.random() } else { 0 };
            // Fewest candidates per unit of failure weight (dom/wdeg), then the longest slot.
            let ratio = ((self.counts[v] as u64) << 16) / self.weights[v];
            let key = (ratio, usize::MAX - self.vars[v].len, tie, v);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map(|b| b.3)
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
        let candidates: Vec<u32> = {
            let mut c: Vec<u32> = ones(&self.domains[v]).collect();
            if self.restarts > 0 && c.len() > 1 {
                // Shuffle within small windows: still best-first, but a different path.
                for chunk in c.chunks_mut(4) {
                    for i in (1..chunk.len()).rev() {
                        let j = (self.random() % (i as u64 + 1)) as usize;
                        chunk.swap(i, j);
                    }
                }
            }
            c
        };
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
        let mut budget_size: u64 = 4_000;
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
                    budget_size = budget_size * 3 / 2;
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

