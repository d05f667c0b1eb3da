//! The word index of one language: a memory-mapped file answering pattern queries
//! ("which words fit `C_T__`?") and exact lookups, without deserializing anything.
//!
//! Layout in brief (`docs/index-format.md` has every byte): entries are grouped by length and
//! sorted by score, best first, so an entry's *rank* in its group orders results. For every
//! (length, position, cell) there is a posting set of ranks: a bitset when the cell is common
//! there, a sorted list when it is rare (which keeps Chinese, with thousands of cells, small).
//! A pattern query intersects one posting set per fixed cell and walks the intersection in rank
//! order, so the first `limit` hits found are already the best-scored ones.

pub mod bitset;
pub mod format;
pub mod list_cache;
mod pattern;
pub mod wordlist;
pub mod writer;

use std::ops::Range;
use std::path::Path;

use bytemuck::Pod;
use smallvec::SmallVec;

pub use mapped_file::{OpenError, Verify};
pub use pattern::{Pattern, PatternError};
pub use writer::{IndexStats, IndexWriter, RejectedEntry};

use crossword_lang::Language;
use format::*;
use mapped_file::{cast, checked_range, corrupt, Envelope, FileKind, MappedBytes, MappedFile};

/// One search result, borrowed from the mapped index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit<'a> {
    /// The entry, normalized for its language.
    pub word: &'a str,
    /// Quality score, 0 to 100.
    pub score: u8,
}

/// A posting set of one (length, position, cell).
#[derive(Debug, Clone, Copy)]
pub enum Postings<'a> {
    /// Bit `r` set when rank `r` has the cell.
    Bitset(&'a [u64]),
    /// Ascending ranks having the cell.
    List(&'a [u32]),
}

/// Validated location of one length group's arrays.
#[derive(Debug, Clone, Default)]
struct Group {
    count: usize,
    scores: Range<usize>,
    text_offsets: Range<usize>,
    text: Range<usize>,
    cells: Range<usize>,
    /// Per position: the byte range of its `PostingRef` array.
    positions: Vec<Range<usize>>,
}

/// The text and score arrays of one length group.
struct EntryArrays<'a> {
    offsets: &'a [u32],
    text: &'a [u8],
    scores: &'a [u8],
}

impl<'a> EntryArrays<'a> {
    /// The entry at `rank`.
    fn hit(&self, rank: u32) -> Option<Hit<'a>> {
        let r = rank as usize;
        let (a, b) = (*self.offsets.get(r)? as usize, *self.offsets.get(r + 1)? as usize);
        let word = std::str::from_utf8(self.text.get(a..b)?).ok()?;
        Some(Hit { word, score: *self.scores.get(r)? })
    }
}

/// An open, memory-mapped index of one language.
pub struct Index {
    language: Language,
    file: MappedFile,
    fst: fst::Map<MappedBytes>,
    cell_offsets: Range<usize>,
    cell_bytes: Range<usize>,
    cell_count: usize,
    groups: Vec<Group>,
    meta: Range<usize>,
    folds: Range<usize>,
    /// Cell text to id, built at open (at most a few thousand small strings).
    cell_ids: ahash::AHashMap<Box<str>, u16>,
    /// The ids of one-byte (ASCII) cells by byte, [`NO_CELL`] where the map must be asked: the
    /// common case looked up without hashing.
    ascii_cell_ids: [u16; 128],
}

/// No cell: an empty slot of `ascii_cell_ids`.
const NO_CELL: u16 = u16::MAX;

impl Index {
    /// Maps and validates an index file for `language`.
    pub fn open(path: &Path, language: Language, verify: Verify) -> Result<Index, OpenError> {
        let file = MappedFile::open(path)?;
        Index::from_mapped(file, language, verify)
    }

    fn from_mapped(file: MappedFile, language: Language, verify: Verify) -> Result<Index, OpenError> {
        let bytes = file.bytes();
        let kind = FileKind {
            what: "index file",
            magic: MAGIC,
            footer_magic: FOOTER_MAGIC,
            version: FORMAT_VERSION,
            header_len: std::mem::size_of::<Header>(),
            section_count_at: std::mem::offset_of!(Header, section_count),
        };
        let envelope = Envelope::open(bytes, &kind, language.code(), verify)?;
        let header: Header = bytemuck::pod_read_unaligned(&bytes[..kind.header_len]);
        let find = |kind: u32| envelope.find(kind, true);
        let body = envelope.body();
        let cells = find(section::CELLS)?;
        let groups_range = find(section::GROUPS)?;
        let fst_range = find(section::FST)?;
        let meta = find(section::META)?;
        let folds = match envelope.has(section::FOLD) {
            true => find(section::FOLD)?,
            false => 0..0,
        };
        if folds.len() % 8 != 0 {
            return corrupt("fold table length is not a multiple of 8");
        }

        // Cell table.
        let cell_count = header.cell_count as usize;
        let counts: &[u32] = cast(bytes, cells.start..cells.start + 8)?;
        if counts[0] as usize != cell_count {
            return corrupt("cell table count disagrees with the header");
        }
        let cell_offsets = cells.start + 8..cells.start + 8 + 4 * (cell_count + 1);
        let offsets: &[u32] = cast(bytes, cell_offsets.clone())?;
        let cell_bytes = cell_offsets.end..cells.end;
        if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last().map(|&l| l as usize) > Some(cell_bytes.len()) {
            return corrupt("cell offsets out of order");
        }
        let Ok(cell_text) = std::str::from_utf8(&bytes[cell_bytes.clone()]) else {
            return corrupt("cell table is not UTF-8");
        };
        let mut cell_ids: ahash::AHashMap<Box<str>, u16> = ahash::AHashMap::with_capacity(cell_count);
        for (id, w) in offsets.windows(2).enumerate() {
            match cell_text.get(w[0] as usize..w[1] as usize) {
                Some(c) => cell_ids.insert(c.into(), id as u16),
                None => return corrupt("cell offsets split a character"),
            };
        }
        let mut ascii_cell_ids = [NO_CELL; 128];
        for (cell, &id) in &cell_ids {
            if let [b] = cell.as_bytes() {
                if let Some(slot) = ascii_cell_ids.get_mut(*b as usize) {
                    *slot = id;
                }
            }
        }

        // Length groups.
        let dirs: &[GroupDir] = cast(bytes, groups_range)?;
        if dirs.len() != MAX_LEN + 1 {
            return corrupt("wrong number of length groups");
        }
        let mut groups = Vec::with_capacity(dirs.len());
        for (len, d) in dirs.iter().enumerate() {
            if d.count == 0 {
                groups.push(Group::default());
                continue;
            }
            if d.len as usize != len {
                return corrupt(format!("group {len} says length {}", d.len));
            }
            let n = d.count as usize;
            let g = Group {
                count: n,
                scores: checked_range(d.scores, n as u64, body)?,
                text_offsets: checked_range(d.text_offsets, 4 * (n as u64 + 1), body)?,
                text: checked_range(d.text, d.text_len, body)?,
                cells: checked_range(d.cells, 2 * (n * len) as u64, body)?,
                positions: Vec::with_capacity(len),
            };
            let text_offsets: &[u32] = cast(bytes, g.text_offsets.clone())?;
            if text_offsets.last().map(|&l| l as usize) != Some(g.text.len()) {
                return corrupt(format!("group {len}: text offsets do not cover the text"));
            }
            let positions: &[PositionDir] = cast(bytes, checked_range(d.positions, 16 * len as u64, body)?)?;
            let mut g = g;
            for p in positions {
                let refs_range = checked_range(p.refs, 24 * p.count as u64, body)?;
                let refs: &[PostingRef] = cast(bytes, refs_range.clone())?;
                for r in refs {
                    let width = if r.kind == POSTING_BITSET { 8 } else { 4 };
                    checked_range(r.offset, width * r.items as u64, body)?;
                    if r.kind > POSTING_LIST || (r.kind == POSTING_BITSET && r.items as usize != n.div_ceil(64)) {
                        return corrupt(format!("group {len}: bad posting record"));
                    }
                    if r.offset % 8 != 0 || r.cell as usize >= cell_count {
                        return corrupt(format!("group {len}: misaligned posting or unknown cell"));
                    }
                }
                g.positions.push(refs_range);
            }
            groups.push(g);
        }

        let fst_bytes = file.slice(fst_range).ok_or_else(|| OpenError::Corrupt("fst out of bounds".into()))?;
        let fst = fst::Map::new(fst_bytes).map_err(|e| OpenError::Corrupt(format!("fst: {e}")))?;
        Ok(Index {
            language,
            file,
            fst,
            cell_offsets,
            cell_bytes,
            cell_count,
            groups,
            meta,
            folds,
            cell_ids,
            ascii_cell_ids,
        })
    }

    /// The language of this index.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Size of the mapped file in bytes.
    pub fn mapped_bytes(&self) -> usize {
        self.file.len()
    }

    /// Number of distinct entries.
    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.count).sum()
    }

    /// True when the index holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of entries of `len` cells.
    pub fn count_of_length(&self, len: usize) -> usize {
        self.groups.get(len).map_or(0, |g| g.count)
    }

    /// The build facts recorded by the writer (JSON).
    pub fn meta(&self) -> &str {
        std::str::from_utf8(&self.file.bytes()[self.meta.clone()]).unwrap_or("{}")
    }

    /// Applies the index's character folds (Chinese Traditional to Simplified) to user text;
    /// text without foldable characters is returned unchanged.
    pub fn fold<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let pairs: &[[u32; 2]] = self.view(self.folds.clone());
        let lookup =
            |c: char| pairs.binary_search_by_key(&(c as u32), |p| p[0]).ok().and_then(|i| char::from_u32(pairs[i][1]));
        if pairs.is_empty() || !text.chars().any(|c| lookup(c).is_some()) {
            return std::borrow::Cow::Borrowed(text);
        }
        std::borrow::Cow::Owned(text.chars().map(|c| lookup(c).unwrap_or(c)).collect())
    }

    /// Normalizes user text for this index: corpus folds, then the language's rules.
    pub fn normalize(&self, text: &str) -> Result<String, crossword_lang::InvalidChar> {
        self.language.normalize(&self.fold(text))
    }

    /// Parses a user pattern for this index (corpus folds, then the language's rules).
    pub fn pattern(&self, text: &str) -> Result<Pattern, PatternError> {
        Pattern::parse(self.language, &self.fold(text))
    }

    /// Scores of known words, each paired with the word as given (not its normalized form), in
    /// input order; unknown or unnormalizable words are omitted.
    pub fn scores<'w>(&self, words: impl IntoIterator<Item = &'w str>) -> Vec<(&'w str, u8)> {
        words.into_iter().filter_map(|w| Some((w, self.score(&self.normalize(w).ok()?)?))).collect()
    }

    /// Number of distinct cells.
    pub fn cell_count(&self) -> usize {
        self.cell_count
    }

    /// The text of cell `id`.
    pub fn cell(&self, id: u16) -> Option<&str> {
        let offsets: &[u32] = bytemuck::cast_slice(&self.file.bytes()[self.cell_offsets.clone()]);
        let (a, b) = (*offsets.get(id as usize)? as usize, *offsets.get(id as usize + 1)? as usize);
        let cells = &self.file.bytes()[self.cell_bytes.clone()];
        std::str::from_utf8(cells.get(a..b)?).ok()
    }

    /// The id of a cell, if any entry uses it.
    pub fn cell_id(&self, cell: &str) -> Option<u16> {
        if let [b] = cell.as_bytes() {
            match self.ascii_cell_ids.get(*b as usize) {
                Some(&id) if id != NO_CELL => return Some(id),
                _ => {}
            }
        }
        self.cell_ids.get(cell).copied()
    }

    fn view<T: Pod>(&self, range: Range<usize>) -> &[T] {
        // Ranges were bounds- and alignment-checked when the file was opened.
        bytemuck::cast_slice(&self.file.bytes()[range])
    }

    /// Scores of the entries of length `len`, by rank (best first).
    pub fn scores_of_length(&self, len: usize) -> &[u8] {
        self.groups.get(len).map_or(&[][..], |g| self.view(g.scores.clone()))
    }

    /// The entry of length `len` at `rank`.
    pub fn entry(&self, len: usize, rank: u32) -> Option<Hit<'_>> {
        self.entries_of_length(len)?.hit(rank)
    }

    /// The arrays that turn ranks of length `len` into entries, resolved once.
    fn entries_of_length(&self, len: usize) -> Option<EntryArrays<'_>> {
        let g = self.groups.get(len)?;
        Some(EntryArrays {
            offsets: self.view(g.text_offsets.clone()),
            text: &self.file.bytes()[g.text.clone()],
            scores: self.view(g.scores.clone()),
        })
    }

    /// The cell ids of every entry of length `len`, row-major by rank (`len` ids per entry).
    pub fn cells_of_length(&self, len: usize) -> &[u16] {
        self.groups.get(len).map_or(&[][..], |g| self.view(g.cells.clone()))
    }

    /// The cell ids of the entry of length `len` at `rank`.
    pub fn entry_cells(&self, len: usize, rank: u32) -> Option<&[u16]> {
        let g = self.groups.get(len)?;
        let cells: &[u16] = self.view(g.cells.clone());
        cells.get(rank as usize * len..(rank as usize + 1) * len)
    }

    /// The posting set of `cell` at `pos` among entries of length `len` (None: no entry has it).
    pub fn postings(&self, len: usize, pos: usize, cell: u16) -> Option<Postings<'_>> {
        self.postings_with_cardinality(len, pos, cell).map(|(_, p)| p)
    }

    /// Like [`Index::postings`], with the number of ranks in the set.
    pub fn postings_with_cardinality(&self, len: usize, pos: usize, cell: u16) -> Option<(u32, Postings<'_>)> {
        let g = self.groups.get(len)?;
        let refs: &[PostingRef] = self.view(g.positions.get(pos)?.clone());
        let r = refs.binary_search_by_key(&(cell as u32), |r| r.cell).ok().map(|i| &refs[i])?;
        Some((r.cardinality, self.posting_set(r)))
    }

    /// The posting set a [`PostingRef`] points at (checked when the file was opened).
    fn posting_set(&self, r: &PostingRef) -> Postings<'_> {
        let start = r.offset as usize;
        if r.kind == POSTING_BITSET {
            Postings::Bitset(self.view(start..start + 8 * r.items as usize))
        } else {
            Postings::List(self.view(start..start + 4 * r.items as usize))
        }
    }

    /// Every cell that occurs at `pos` among entries of length `len`, with its posting set.
    pub fn position_postings(&self, len: usize, pos: usize) -> impl Iterator<Item = (u16, Postings<'_>)> + '_ {
        let refs: &[PostingRef] = match self.groups.get(len).and_then(|g| g.positions.get(pos)) {
            Some(range) => self.view(range.clone()),
            None => &[],
        };
        refs.iter().map(move |r| (r.cell as u16, self.posting_set(r)))
    }

    /// The length and rank of a normalized entry, if the index has it.
    pub fn locate(&self, normalized: &str) -> Option<(usize, u32)> {
        let v = self.fst.get(normalized)?;
        Some(((v >> 32) as usize, v as u32))
    }

    /// The score of a normalized entry, if the index has it.
    pub fn score(&self, normalized: &str) -> Option<u8> {
        let (len, rank) = self.locate(normalized)?;
        self.scores_of_length(len).get(rank as usize).copied()
    }

    /// The best-scored entries matching `pattern` with a score of at least `min_score`, best
    /// first, at most `limit` of them.
    pub fn search(&self, pattern: &Pattern, min_score: u32, limit: usize) -> Vec<Hit<'_>> {
        let len = pattern.len();
        let mut ranks = Vec::with_capacity(limit.min(128));
        self.search_ranks(pattern, min_score, limit, &mut ranks);
        // Resolve the group's arrays once, not per hit.
        let Some(entries) = self.entries_of_length(len) else { return Vec::new() };
        ranks.into_iter().filter_map(|r| entries.hit(r)).collect()
    }

    /// Like [`Index::search`] but returns ranks within the length group, into `out`.
    pub fn search_ranks(&self, pattern: &Pattern, min_score: u32, limit: usize, out: &mut Vec<u32>) {
        out.clear();
        let len = pattern.len();
        let scores = self.scores_of_length(len);
        // Ranks are in descending score order: everything before `cutoff` passes `min_score`.
        let cutoff = scores.partition_point(|&s| s as u32 >= min_score) as u32;
        if cutoff == 0 || limit == 0 {
            return;
        }
        // On the stack: a query allocates nothing but its answer.
        let mut sets: SmallVec<[(u32, Postings<'_>); INLINE_CELLS]> = SmallVec::new();
        for (pos, cell) in pattern.fixed() {
            let Some(id) = self.cell_id(cell) else { return };
            let Some(set) = self.postings_with_cardinality(len, pos, id) else {
                return;
            };
            sets.push(set);
        }
        if sets.is_empty() {
            out.extend(0..cutoff.min(limit as u32));
            return;
        }
        // Sparsest first: lists (always sparser than any bitset) drive; among bitsets the
        // sparsest zeroes a word soonest.
        sets.sort_unstable_by_key(|s| s.0);
        match sets[0].1 {
            Postings::List(driver) => intersect_from_list(driver, &sets[1..], cutoff, limit, out),
            Postings::Bitset(_) => {
                // Every set is a bitset here (a list would have sorted first). Cut each to the
                // words below `cutoff` so the walk needs no bounds checks.
                let words = (cutoff as usize).div_ceil(64);
                let bitsets: SmallVec<[&[u64]; INLINE_CELLS]> = sets
                    .iter()
                    .filter_map(|s| match s.1 {
                        Postings::Bitset(b) => Some(&b[..words.min(b.len())]),
                        Postings::List(_) => None,
                    })
                    .collect();
                intersect_bitsets(&bitsets, cutoff, limit, out);
            }
        }
    }
}

/// Fixed cells a query keeps on the stack (patterns have at most 23 cells).
const INLINE_CELLS: usize = 24;

/// Walks the smallest (list) set and keeps ranks that every other set contains.
fn intersect_from_list(driver: &[u32], others: &[(u32, Postings<'_>)], cutoff: u32, limit: usize, out: &mut Vec<u32>) {
    // Bitsets answer in one load, lists need a gallop: ask the bitsets first, so most ranks are
    // refused before any list is searched (the list cursors only move forward, so skipping a
    // list for a refused rank is fine).
    let mut others: SmallVec<[(u32, Postings<'_>); INLINE_CELLS]> = others.iter().copied().collect();
    others.sort_by_key(|(_, set)| matches!(set, Postings::List(_)));
    let mut cursors: SmallVec<[usize; INLINE_CELLS]> = smallvec::smallvec![0; others.len()];
    'ranks: for &rank in driver {
        if rank >= cutoff {
            break;
        }
        for ((_, set), cursor) in others.iter().zip(cursors.iter_mut()) {
            let present = match set {
                Postings::Bitset(words) => bitset::test(words, rank),
                Postings::List(list) => {
                    // Both walks ascend: gallop forward from the last position.
                    let rest = &list[*cursor..];
                    let mut step = 1;
                    while step < rest.len() && rest[step] < rank {
                        step *= 2;
                    }
                    let window = &rest[..rest.len().min(step + 1)];
                    let at = window.partition_point(|&r| r < rank);
                    *cursor += at;
                    list.get(*cursor) == Some(&rank)
                }
            };
            if !present {
                continue 'ranks;
            }
        }
        out.push(rank);
        if out.len() == limit {
            break;
        }
    }
}

/// ANDs bitsets word by word from rank 0 and stops after `limit` hits.
fn intersect_bitsets(sets: &[&[u64]], cutoff: u32, limit: usize, out: &mut Vec<u32>) {
    let words = (cutoff as usize).div_ceil(64);
    let Some((first, rest)) = sets.split_first() else {
        return;
    };
    for (w, &word) in first.iter().enumerate().take(words) {
        let mut bits = word;
        for s in rest {
            // A set shorter than the first has no bits past its end.
            bits &= s.get(w).copied().unwrap_or(0);
            if bits == 0 {
                break;
            }
        }
        while bits != 0 {
            let rank = (w * 64) as u32 + bits.trailing_zeros();
            if rank >= cutoff {
                return;
            }
            out.push(rank);
            if out.len() == limit {
                return;
            }
            bits &= bits - 1;
        }
    }
}

#[cfg(test)]
mod tests;
