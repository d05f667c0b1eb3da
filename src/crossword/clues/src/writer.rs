//! Writing a clue collection file.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use super::format::{self, ClueRecord, Header};
use super::{clean_text, dedupe_key, leaks, ClueBase, Kind, Source};
use crossword_lang::Language;
use mapped_file::format::SectionEntry;
use mapped_file::{write_atomically, Out};

/// Longest answer, in cells.
const MAX_ANSWER_CELLS: usize = 23;

/// What [`ClueWriter::add`] did with a clue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddOutcome {
    /// Stored.
    Added,
    /// A repeat of a clue already stored for the answer (for `published`, the counts were
    /// added up).
    Repeat,
    /// The answer is not a valid answer of the language (outside the alphabet, empty, longer
    /// than 23 cells).
    BadAnswer,
    /// Empty, or longer than 150 characters.
    BadText,
    /// The clue gives the answer away.
    Leaks,
}

#[derive(Debug, Clone)]
struct Pending {
    text: String,
    source: Source,
    kind: Kind,
    count: u32,
}

/// Counts for the build report.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ClueStats {
    /// Answers with at least one clue.
    pub answers_with_clues: usize,
    /// Clues (material not counted).
    pub clues: usize,
    /// Generator material records.
    pub material: usize,
    /// Bytes of the file.
    pub bytes: usize,
}

/// Collects clues per answer and writes a clue file.
pub struct ClueWriter {
    language: Language,
    answers: BTreeMap<String, Vec<Pending>>,
    meta: serde_json::Map<String, serde_json::Value>,
}

impl ClueWriter {
    /// An empty collection for `language`.
    pub fn new(language: Language) -> ClueWriter {
        ClueWriter { language, answers: BTreeMap::new(), meta: serde_json::Map::new() }
    }

    /// The records of an existing file, to add to them (`indexbuild clues import`).
    pub fn from_base(base: &ClueBase) -> ClueWriter {
        let mut writer = ClueWriter::new(base.language());
        if let Ok(serde_json::Value::Object(meta)) = serde_json::from_str(base.meta()) {
            writer.meta = meta;
        }
        for (answer, records) in base.answers() {
            let list = writer.answers.entry(answer).or_default();
            list.extend(records.into_iter().map(|r| Pending {
                text: r.text.to_owned(),
                source: r.source,
                kind: r.kind,
                count: r.count,
            }));
        }
        writer
    }

    /// The language.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Normalizes `answer` for the language, or `None` when it is not a valid answer.
    pub fn answer_key(&self, answer: &str) -> Option<String> {
        let key = self.language.normalize(answer).ok()?;
        let cells = self.language.split_cells(&key).len();
        (1..=MAX_ANSWER_CELLS).contains(&cells).then_some(key)
    }

    /// Adds a clue (or, for material kinds, a piece of generator material) for `answer`, which
    /// is normalized here. Text is cleaned with [`clean_text`]; clues that [`leaks`] rejects
    /// are refused; a repeat of a stored clue (same [`dedupe_key`]) is not stored twice.
    pub fn add(&mut self, answer: &str, text: &str, source: Source, kind: Kind, count: u32) -> AddOutcome {
        let Some(key) = self.answer_key(answer) else {
            return AddOutcome::BadAnswer;
        };
        let text =
            if kind.is_clue() { clean_text(text) } else { Some(text.trim().to_owned()).filter(|t| !t.is_empty()) };
        let Some(text) = text.filter(|t| t.len() <= u16::MAX as usize && t.chars().count() <= super::MAX_CLUE_CHARS)
        else {
            return AddOutcome::BadText;
        };
        if kind.is_clue() && leaks(self.language, &key, &text) {
            return AddOutcome::Leaks;
        }
        let list = self.answers.entry(key).or_default();
        let dedupe = dedupe_key(&text);
        if let Some(old) = list.iter_mut().find(|p| p.kind.is_clue() == kind.is_clue() && dedupe_key(&p.text) == dedupe)
        {
            if source == Source::Published && old.source == Source::Published {
                old.count = old.count.saturating_add(count);
            } else if source.rank() < old.source.rank() {
                // A published copy outranks a dictionary one: keep the better source.
                *old = Pending { text, source, kind, count };
            }
            return AddOutcome::Repeat;
        }
        list.push(Pending { text, source, kind, count });
        AddOutcome::Added
    }

    /// Number of clues (not material) stored for `answer` (normalized).
    pub fn clue_count(&self, answer: &str) -> usize {
        self.answers.get(answer).map_or(0, |l| l.iter().filter(|p| p.kind.is_clue()).count())
    }

    /// Records a build fact in the META section.
    pub fn meta(&mut self, key: &str, value: serde_json::Value) {
        self.meta.insert(key.to_owned(), value);
    }

    /// Writes the file atomically (temporary file, then rename).
    pub fn write_to(&self, path: &Path) -> io::Result<ClueStats> {
        let (bytes, stats) = self.to_bytes();
        write_atomically(path, &bytes)?;
        Ok(stats)
    }

    /// Serializes the collection. Within an answer, records are stored in rank order:
    /// published by print count, then original by uses, then dictionary in insertion order,
    /// then ai; material last.
    pub fn to_bytes(&self) -> (Vec<u8>, ClueStats) {
        let mut stats = ClueStats::default();
        let mut fst_builder = fst::MapBuilder::memory();
        let mut first: Vec<u32> = Vec::with_capacity(self.answers.len() + 1);
        let mut records: Vec<ClueRecord> = Vec::new();
        let mut text: Vec<u8> = Vec::new();
        for (ordinal, (answer, list)) in self.answers.iter().enumerate() {
            // BTreeMap order is byte order, as the fst needs; keys are unique.
            let _ = fst_builder.insert(answer, ordinal as u64);
            first.push(records.len() as u32);
            let mut sorted: Vec<(usize, &Pending)> = list.iter().enumerate().collect();
            sorted.sort_by_key(|(i, p)| {
                let count = if p.source == Source::Dictionary { 0 } else { p.count };
                (!p.kind.is_clue(), p.source.rank(), std::cmp::Reverse(count), *i)
            });
            let clues = list.iter().filter(|p| p.kind.is_clue()).count();
            stats.clues += clues;
            stats.material += list.len() - clues;
            stats.answers_with_clues += usize::from(clues > 0);
            for (_, p) in sorted {
                records.push(ClueRecord {
                    text_offset: text.len() as u64,
                    text_len: p.text.len() as u16,
                    source: p.source.to_u8(),
                    kind: p.kind.to_u8(),
                    count: p.count,
                });
                text.extend_from_slice(p.text.as_bytes());
            }
        }
        first.push(records.len() as u32);
        let fst_bytes = fst_builder.into_inner().unwrap_or_default();
        let meta = serde_json::to_vec(&self.meta).unwrap_or_else(|_| b"{}".to_vec());

        let mut out = Out::default();
        out.bytes.resize(std::mem::size_of::<Header>(), 0);
        let table_at = out.bytes.len();
        const SECTIONS: usize = 5;
        out.bytes.resize(table_at + SECTIONS * std::mem::size_of::<SectionEntry>(), 0);
        let mut sections = Vec::with_capacity(SECTIONS);
        for (kind, data) in [
            (format::section::FST, fst_bytes.as_slice()),
            (format::section::ANSWERS, bytemuck::cast_slice(&first)),
            (format::section::RECORDS, bytemuck::cast_slice(&records)),
            (format::section::TEXT, text.as_slice()),
            (format::section::META, meta.as_slice()),
        ] {
            let at = out.put(data);
            sections.push(out.section(kind, at, data.len() as u64));
        }
        let mut language = [0u8; 8];
        language[..self.language.code().len()].copy_from_slice(self.language.code().as_bytes());
        let header = Header {
            magic: format::MAGIC,
            version: format::FORMAT_VERSION,
            header_len: std::mem::size_of::<Header>() as u32,
            language,
            answer_count: self.answers.len() as u32,
            record_count: records.len() as u32,
            section_count: SECTIONS as u32,
            flags: 0,
            reserved: [0; 24],
        };
        out.bytes[..std::mem::size_of::<Header>()].copy_from_slice(bytemuck::bytes_of(&header));
        out.bytes[table_at..table_at + SECTIONS * std::mem::size_of::<SectionEntry>()]
            .copy_from_slice(bytemuck::cast_slice(&sections));
        let bytes = out.finish(format::FOOTER_MAGIC);
        stats.bytes = bytes.len();
        (bytes, stats)
    }
}
