//! Reading a clue collection file through a memory map, zero-copy.

use std::ops::Range;
use std::path::Path;

use super::format::{self, ClueRecord, Header};
use super::{Kind, Source};
use crossword_lang::Language;
use mapped_file::{cast, corrupt, Envelope, FileKind, MappedBytes, MappedFile, OpenError, Verify};

/// One record of the base collection, borrowed from the mapped file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseClue<'a> {
    /// The clue text (or the material, for generator-only kinds).
    pub text: &'a str,
    /// Where it comes from.
    pub source: Source,
    /// What it is.
    pub kind: Kind,
    /// Print count (`published`), uses (`original`), else 0.
    pub count: u32,
}

/// A language's read-only clue collection, memory-mapped.
pub struct ClueBase {
    file: MappedFile,
    language: Language,
    fst: fst::Map<MappedBytes>,
    answers: Range<usize>,
    records: Range<usize>,
    text: Range<usize>,
    meta: Range<usize>,
    record_count: usize,
}

impl ClueBase {
    /// Maps and checks a clue file.
    pub fn open(path: &Path, language: Language, verify: Verify) -> Result<ClueBase, OpenError> {
        ClueBase::from_mapped(MappedFile::open(path)?, language, verify)
    }

    fn from_mapped(file: MappedFile, language: Language, verify: Verify) -> Result<ClueBase, OpenError> {
        let bytes = file.bytes();
        let kind = FileKind {
            what: "clue file",
            magic: format::MAGIC,
            footer_magic: format::FOOTER_MAGIC,
            version: format::FORMAT_VERSION,
            header_len: std::mem::size_of::<Header>(),
            section_count_at: std::mem::offset_of!(Header, section_count),
        };
        let envelope = Envelope::open(bytes, &kind, language.code(), verify)?;
        let header: Header = bytemuck::pod_read_unaligned(&bytes[..kind.header_len]);
        let find = |kind: u32, check: bool| envelope.find(kind, check);
        // The small sections are checked at open (the fst parser must never see corrupt bytes);
        // the bulk (records and text) is covered by the footer checksum at install time.
        let fst_range = find(format::section::FST, true)?;
        let answers = find(format::section::ANSWERS, true)?;
        let records = find(format::section::RECORDS, false)?;
        let text = find(format::section::TEXT, false)?;
        let meta = find(format::section::META, true)?;
        let first: &[u32] = cast(bytes, answers.clone())?;
        let recs: &[ClueRecord] = cast(bytes, records.clone())?;
        if first.len() != header.answer_count as usize + 1 || recs.len() != header.record_count as usize {
            return corrupt("clue counts disagree with the header");
        }
        if first.windows(2).any(|w| w[0] > w[1]) || first.last().map(|&l| l as usize) != Some(recs.len()) {
            return corrupt("answer table out of order");
        }
        let fst_bytes = file.slice(fst_range).ok_or_else(|| OpenError::Corrupt("fst out of bounds".into()))?;
        let fst = fst::Map::new(fst_bytes).map_err(|e| OpenError::Corrupt(format!("clue fst: {e}")))?;
        if fst.len() != header.answer_count as usize {
            return corrupt("clue fst size disagrees with the header");
        }
        let record_count = recs.len();
        Ok(ClueBase { file, language, fst, answers, records, text, meta, record_count })
    }

    /// The language of the collection.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Number of answers with at least one record.
    pub fn answer_count(&self) -> usize {
        self.fst.len()
    }

    /// Number of records (clues and material).
    pub fn record_count(&self) -> usize {
        self.record_count
    }

    /// Bytes mapped.
    pub fn mapped_bytes(&self) -> usize {
        self.file.len()
    }

    /// The META section (JSON).
    pub fn meta(&self) -> &str {
        std::str::from_utf8(&self.file.bytes()[self.meta.clone()]).unwrap_or("{}")
    }

    /// Every record of `answer` (normalized), best first: clues and generator material.
    /// Records that fail to decode (a corrupt file) are skipped.
    pub fn records(&self, answer: &str) -> impl Iterator<Item = BaseClue<'_>> + '_ {
        let range = self.record_range(answer).unwrap_or(0..0);
        let bytes = self.file.bytes();
        let recs: &[ClueRecord] = cast(bytes, self.records.clone()).unwrap_or(&[]);
        let text = &bytes[self.text.clone()];
        recs.get(range).unwrap_or(&[]).iter().filter_map(move |r| {
            let start = usize::try_from(r.text_offset).ok()?;
            let raw = text.get(start..start.checked_add(r.text_len as usize)?)?;
            Some(BaseClue {
                text: std::str::from_utf8(raw).ok()?,
                source: Source::from_u8(r.source)?,
                kind: Kind::from_u8(r.kind)?,
                count: r.count,
            })
        })
    }

    /// The clues of `answer` (normalized), best first, without generator material.
    pub fn clues(&self, answer: &str) -> impl Iterator<Item = BaseClue<'_>> + '_ {
        self.records(answer).filter(|c| c.kind.is_clue())
    }

    /// Every answer with its records, in byte order of the answers (for rewriting a file).
    pub fn answers(&self) -> impl Iterator<Item = (String, Vec<BaseClue<'_>>)> + '_ {
        use fst::Streamer;
        let mut stream = self.fst.stream();
        std::iter::from_fn(move || {
            let (key, _) = stream.next()?;
            Some(String::from_utf8_lossy(key).into_owned())
        })
        .map(|answer| {
            let records = self.records(&answer).collect();
            (answer, records)
        })
    }

    fn record_range(&self, answer: &str) -> Option<Range<usize>> {
        let ordinal = self.fst.get(answer)? as usize;
        let first: &[u32] = cast(self.file.bytes(), self.answers.clone()).ok()?;
        Some(*first.get(ordinal)? as usize..*first.get(ordinal + 1)? as usize)
    }
}
