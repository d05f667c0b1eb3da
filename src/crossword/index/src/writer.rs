//! Building index files. Used by `indexbuild` and by tests that make small fixture indexes.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use ahash::AHashMap;

use crossword_lang::Language;
use mapped_file::{write_atomically, Out};

use super::format::*;

/// The writer's own version: bump it when the bytes it writes for the same entries change, so
/// cached list indexes ([`crate::list_cache`]) are built again.
pub const WRITER_VERSION: u32 = 1;

/// Collects scored entries of one language and writes them as an index file.
pub struct IndexWriter {
    language: Language,
    entries: AHashMap<String, u8>,
    meta: serde_json::Map<String, serde_json::Value>,
    folds: BTreeMap<char, char>,
}

/// Why an entry was not accepted by [`IndexWriter::insert`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RejectedEntry {
    /// The text is not normalized for the language (or contains characters outside it).
    #[error("not normalized for the language")]
    NotNormalized,
    /// Zero cells or more than [`MAX_LEN`].
    #[error("length {0} is outside 1..=23 cells")]
    Length(usize),
}

/// Figures about a written index.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct IndexStats {
    /// Distinct entries.
    pub entries: usize,
    /// Distinct cells.
    pub cells: usize,
    /// Entries per length (index = length).
    pub by_length: Vec<usize>,
    /// Entries per score band: under 20, 20-39, 40-59, 60-79, 80 and up.
    pub by_band: [usize; 5],
    /// Size of the file in bytes.
    pub bytes: usize,
}

impl IndexWriter {
    /// An empty writer for `language`.
    pub fn new(language: Language) -> IndexWriter {
        IndexWriter { language, entries: AHashMap::new(), meta: serde_json::Map::new(), folds: BTreeMap::new() }
    }

    /// Adds or raises an entry. `text` must already be normalized for the language; a repeated
    /// entry keeps its highest score. Scores above 100 are clamped.
    pub fn insert(&mut self, text: &str, score: u8) -> Result<(), RejectedEntry> {
        match self.language.normalize(text) {
            Ok(n) if n == text => {}
            _ => return Err(RejectedEntry::NotNormalized),
        }
        let len = self.language.split_cells(text).len();
        if !(1..=MAX_LEN).contains(&len) {
            return Err(RejectedEntry::Length(len));
        }
        let score = score.min(100);
        let slot = self.entries.entry(text.to_owned()).or_insert(score);
        *slot = (*slot).max(score);
        Ok(())
    }

    /// Adds or raises an entry already normalized for the language (e.g. by
    /// [`crate::wordlist::parse`]): only its length is checked, and the string is kept as is.
    pub fn insert_normalized(&mut self, text: String, score: u8) -> Result<(), RejectedEntry> {
        let len = self.language.split_cells(&text).len();
        if !(1..=MAX_LEN).contains(&len) {
            return Err(RejectedEntry::Length(len));
        }
        let score = score.min(100);
        let slot = self.entries.entry(text).or_insert(score);
        *slot = (*slot).max(score);
        Ok(())
    }

    /// Makes room for `additional` more entries.
    pub fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }

    /// Replaces the score of an entry (adding it if new), e.g. when a user's list overrides.
    pub fn set(&mut self, text: &str, score: u8) -> Result<(), RejectedEntry> {
        self.entries.remove(text);
        self.insert(text, score)
    }

    /// Removes an entry (blocklists).
    pub fn remove(&mut self, text: &str) -> bool {
        self.entries.remove(text).is_some()
    }

    /// Current score of an entry.
    pub fn get(&self, text: &str) -> Option<u8> {
        self.entries.get(text).copied()
    }

    /// Number of distinct entries so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Iterates over the entries collected so far (in no particular order).
    pub fn entries(&self) -> impl Iterator<Item = (&str, u8)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// Adds a character fold applied to user text before the language's rules (e.g. a
    /// Traditional Chinese character to its Simplified form).
    pub fn fold(&mut self, from: char, to: char) {
        if from != to {
            self.folds.insert(from, to);
        }
    }

    /// Records a build fact in the file's META section.
    pub fn meta(&mut self, key: &str, value: serde_json::Value) {
        self.meta.insert(key.to_owned(), value);
    }

    /// Writes the index to `path` atomically (temporary file, then rename).
    pub fn write_to(&self, path: &Path) -> io::Result<IndexStats> {
        let (bytes, stats) = self.to_bytes()?;
        write_atomically(path, &bytes)?;
        Ok(stats)
    }

    /// Serializes the index: header and section table, then the CELLS, GROUPS, FST, META and
    /// (when there are folds) FOLD sections, then the footer.
    pub fn to_bytes(&self) -> io::Result<(Vec<u8>, IndexStats)> {
        let lang = self.language;
        // Cells get provisional ids in the order they are first seen; every distinct cell,
        // sorted by bytes, then gives the final ids (positions in that order).
        let mut provisional: AHashMap<&str, u16> = AHashMap::new();
        let mut seen: Vec<&str> = Vec::new();
        let mut split: Vec<(&str, u8, Vec<u16>)> = Vec::with_capacity(self.entries.len());
        for (text, &score) in &self.entries {
            let mut ids = Vec::with_capacity(text.len());
            for cell in lang.split_cells(text) {
                let id = match provisional.get(cell) {
                    Some(&id) => id,
                    None => {
                        if seen.len() >= u16::MAX as usize {
                            return Err(io::Error::other("more than 65535 distinct cells"));
                        }
                        provisional.insert(cell, seen.len() as u16);
                        seen.push(cell);
                        (seen.len() - 1) as u16
                    }
                };
                ids.push(id);
            }
            split.push((text.as_str(), score, ids));
        }
        let mut cell_set = seen.clone();
        cell_set.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        let mut final_id = vec![0u16; seen.len()];
        for (id, cell) in cell_set.iter().enumerate() {
            final_id[provisional[cell] as usize] = id as u16;
        }

        // One sort by text (the FST's order), then a stable counting sort by length and score
        // (best first) gives each group's ranks: groups are best first, then by text.
        split.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut next = vec![[0u32; 101]; MAX_LEN + 1];
        for (_, score, ids) in &split {
            next[ids.len()][*score as usize] += 1;
        }
        let mut sizes = [0usize; MAX_LEN + 1];
        for (len, counts) in next.iter_mut().enumerate() {
            let mut rank = 0;
            for score in (0..=100).rev() {
                let n = counts[score];
                counts[score] = rank;
                rank += n;
            }
            sizes[len] = rank as usize;
        }
        let mut groups: Vec<Group<'_>> = sizes.iter().map(|&n| vec![("", 0u8, Vec::new()); n]).collect();
        let mut keyed: Vec<(&str, u64)> = Vec::with_capacity(split.len());
        for (text, score, mut ids) in split {
            ids.iter_mut().for_each(|id| *id = final_id[*id as usize]);
            let len = ids.len();
            let rank = next[len][score as usize];
            next[len][score as usize] += 1;
            keyed.push((text, ((len as u64) << 32) | u64::from(rank)));
            groups[len][rank as usize] = (text, score, ids);
        }

        // The FST is built on another thread meanwhile.
        std::thread::scope(|scope| {
            let fst = scope.spawn(|| fst_bytes(&keyed));
            self.assemble(&cell_set, &groups, fst)
        })
    }

    /// Lays the sections out: header and table, CELLS, GROUPS, FST (joined from its thread),
    /// META, FOLD, footer.
    fn assemble(
        &self,
        cell_set: &[&str],
        groups: &[Group<'_>],
        fst: std::thread::ScopedJoinHandle<'_, io::Result<Vec<u8>>>,
    ) -> io::Result<(Vec<u8>, IndexStats)> {
        let mut out = Out::default();
        // About what the file will take (texts, cell ids, offsets, postings), so the buffer
        // is not copied over and over as it grows.
        let text_bytes: usize = self.entries.keys().map(String::len).sum();
        out.bytes.reserve(text_bytes * 8 + self.entries.len() * 16 + (1 << 20));
        out.bytes.resize(std::mem::size_of::<Header>(), 0);
        let sections_total = if self.folds.is_empty() { 4 } else { 5 };
        let table_at = out.bytes.len();
        out.bytes.resize(table_at + sections_total * std::mem::size_of::<SectionEntry>(), 0);
        let mut stats = IndexStats { by_length: vec![0; MAX_LEN + 1], cells: cell_set.len(), ..Default::default() };
        let mut sections =
            vec![write_cells(&mut out, cell_set), write_groups(&mut out, groups, cell_set.len(), &mut stats)];
        let fst_bytes = fst.join().map_err(|_| io::Error::other("building the FST failed"))??;
        let start = out.put(&fst_bytes);
        sections.push(out.section(section::FST, start, fst_bytes.len() as u64));
        sections.push(self.write_meta(&mut out)?);
        if !self.folds.is_empty() {
            let pairs: Vec<u32> = self.folds.iter().flat_map(|(f, t)| [*f as u32, *t as u32]).collect();
            let start = out.put(&pairs);
            sections.push(out.section(section::FOLD, start, (pairs.len() * 4) as u64));
        }
        debug_assert_eq!(sections.len(), sections_total);

        // Header and section table, then the footer over everything before it.
        let header = self.header(cell_set.len(), sections_total);
        out.bytes[..std::mem::size_of::<Header>()].copy_from_slice(bytemuck::bytes_of(&header));
        out.bytes[table_at..table_at + sections_total * std::mem::size_of::<SectionEntry>()]
            .copy_from_slice(bytemuck::cast_slice(&sections));
        let bytes = out.finish(FOOTER_MAGIC);
        stats.entries = self.entries.len();
        stats.bytes = bytes.len();
        Ok((bytes, stats))
    }

    /// META: the build facts as JSON, with the language and the entry count.
    fn write_meta(&self, out: &mut Out) -> io::Result<SectionEntry> {
        let mut meta = self.meta.clone();
        meta.insert("language".into(), self.language.code().into());
        meta.insert("entries".into(), self.entries.len().into());
        let meta = serde_json::to_vec(&meta).map_err(io::Error::other)?;
        let start = out.put(&meta);
        Ok(out.section(section::META, start, meta.len() as u64))
    }

    fn header(&self, cell_count: usize, section_count: usize) -> Header {
        let code = self.language.code();
        let mut language = [0u8; 8];
        language[..code.len()].copy_from_slice(code.as_bytes());
        Header {
            magic: MAGIC,
            version: FORMAT_VERSION,
            header_len: std::mem::size_of::<Header>() as u32,
            language,
            entry_count: self.entries.len() as u32,
            cell_count: cell_count as u32,
            max_len: MAX_LEN as u32,
            section_count: section_count as u32,
            flags: 0,
            reserved: [0; 20],
        }
    }
}

/// FST: entry text to `(length << 32) | rank`, from the entries sorted by bytes.
fn fst_bytes(keyed: &[(&str, u64)]) -> io::Result<Vec<u8>> {
    let mut builder = fst::MapBuilder::memory();
    for (k, v) in keyed {
        builder.insert(k, *v).map_err(io::Error::other)?;
    }
    builder.into_inner().map_err(io::Error::other)
}

/// The entries of one length, best first: text, score and cell ids.
type Group<'a> = Vec<(&'a str, u8, Vec<u16>)>;

/// CELLS: `u32` count, `u32` zero, `u32` offsets\[count + 1\], the cells' bytes.
fn write_cells(out: &mut Out, cells: &[&str]) -> SectionEntry {
    let start = out.align();
    let mut offsets = vec![0u32];
    let mut blob = Vec::new();
    for c in cells {
        blob.extend_from_slice(c.as_bytes());
        offsets.push(blob.len() as u32);
    }
    out.put(&[cells.len() as u32, 0]);
    out.put(&offsets);
    out.bytes.extend_from_slice(&blob);
    out.section(section::CELLS, start as u64, (out.bytes.len() - start) as u64)
}

/// GROUPS: each length group's arrays and posting sets, then the directory of
/// `MAX_LEN + 1` [`GroupDir`] records; counts entries by length and score band into `stats`.
fn write_groups(out: &mut Out, groups: &[Group<'_>], cell_count: usize, stats: &mut IndexStats) -> SectionEntry {
    let mut dirs = vec![GroupDir::default(); MAX_LEN + 1];
    for (len, group) in groups.iter().enumerate() {
        if group.is_empty() {
            continue;
        }
        stats.by_length[len] = group.len();
        for (_, s, _) in group {
            stats.by_band[(*s as usize / 20).min(4)] += 1;
        }
        let mut dir = GroupDir { count: group.len() as u32, len: len as u32, ..Default::default() };
        dir.scores = out.put(&group.iter().map(|e| e.1).collect::<Vec<u8>>());
        let mut text_offsets = Vec::with_capacity(group.len() + 1);
        let mut text = Vec::new();
        text_offsets.push(0u32);
        for (t, _, _) in group {
            text.extend_from_slice(t.as_bytes());
            text_offsets.push(text.len() as u32);
        }
        dir.text_offsets = out.put(&text_offsets);
        dir.text = out.put(&text);
        dir.text_len = text.len() as u64;
        dir.cells = out.put(&group.iter().flat_map(|e| e.2.iter().copied()).collect::<Vec<u16>>());
        let mut scratch = PositionScratch::new(cell_count, group.len());
        let positions: Vec<PositionDir> = (0..len).map(|pos| write_position(out, group, pos, &mut scratch)).collect();
        dir.positions = out.put(&positions);
        dirs[len] = dir;
    }
    let start = out.put(&dirs);
    out.section(section::GROUPS, start, out.bytes.len() as u64 - start)
}

/// Reused buffers of [`write_position`]: a count per cell id and the ranks grouped by cell.
struct PositionScratch {
    starts: Vec<u32>,
    ranks: Vec<u32>,
}

impl PositionScratch {
    fn new(cell_count: usize, entries: usize) -> PositionScratch {
        PositionScratch { starts: vec![0; cell_count + 1], ranks: vec![0; entries] }
    }
}

/// The posting sets of one position of a group: a bitset for a common cell, a rank list for a
/// rare one (see [`LIST_DENSITY`]). The ranks are grouped by cell with a counting sort (cells
/// in id order, ranks ascending within each).
fn write_position(out: &mut Out, group: &Group<'_>, pos: usize, scratch: &mut PositionScratch) -> PositionDir {
    let count = group.len() as u32;
    let starts = &mut scratch.starts;
    starts.iter_mut().for_each(|s| *s = 0);
    for (_, _, cells) in group {
        starts[cells[pos] as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    for (rank, (_, _, cells)) in group.iter().enumerate() {
        let at = &mut next[cells[pos] as usize];
        scratch.ranks[*at as usize] = rank as u32;
        *at += 1;
    }
    let mut refs = Vec::new();
    for cell in 0..starts.len() - 1 {
        let (from, to) = (starts[cell] as usize, starts[cell + 1] as usize);
        if from == to {
            continue;
        }
        let ranks = &scratch.ranks[from..to];
        let cardinality = ranks.len() as u32;
        let r = if cardinality * LIST_DENSITY > count {
            let mut words = vec![0u64; group.len().div_ceil(64)];
            for &r in ranks {
                crate::bitset::set(&mut words, r);
            }
            let offset = out.put(&words);
            PostingRef { cell: cell as u32, kind: POSTING_BITSET, offset, items: words.len() as u32, cardinality }
        } else {
            let offset = out.put(ranks);
            PostingRef { cell: cell as u32, kind: POSTING_LIST, offset, items: cardinality, cardinality }
        };
        refs.push(r);
    }
    PositionDir { refs: out.put(&refs), count: refs.len() as u32, reserved: 0 }
}
