//! Reading the envelope: a header that starts with magic, version, header length and a
//! language code; a section table; a footer with the body's length and checksum.
//! [`Envelope::open`] checks all of it once, for every file kind.

use std::ops::Range;

use bytemuck::Pod;

use crate::format::{Footer, SectionEntry, ALIGN};

/// The constants that tell one file kind from another.
pub struct FileKind {
    /// "index file", "clue file": used in error messages.
    pub what: &'static str,
    /// First eight bytes.
    pub magic: [u8; 8],
    /// Last eight bytes.
    pub footer_magic: [u8; 8],
    /// The only format version this build reads.
    pub version: u32,
    /// Size of the header.
    pub header_len: usize,
    /// Offset of the header's `section_count` (u32).
    pub section_count_at: usize,
}

/// A checked file: its body length and section table.
pub struct Envelope<'a> {
    bytes: &'a [u8],
    body: usize,
    sections: Vec<SectionEntry>,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

impl<'a> Envelope<'a> {
    /// Checks size and alignment, both magic numbers, the version, the footer's length, the
    /// language code (header bytes 16..24), the body checksum when `verify` asks for it, and
    /// reads the section table that follows the header.
    pub fn open(
        bytes: &'a [u8],
        kind: &FileKind,
        language_code: &str,
        verify: Verify,
    ) -> Result<Envelope<'a>, OpenError> {
        let fsize = std::mem::size_of::<Footer>();
        if bytes.len() < kind.header_len + fsize || bytes.len() % ALIGN != 0 {
            return corrupt(format!("{} too short or not a multiple of 8 bytes", kind.what));
        }
        let body = bytes.len() - fsize;
        let footer: Footer = bytemuck::pod_read_unaligned(&bytes[body..]);
        if bytes[..8] != kind.magic || footer.magic != kind.footer_magic || footer.reserved != 0 {
            return corrupt(format!("bad magic number (not an {})", kind.what));
        }
        let version = u32_at(bytes, 8);
        if version != kind.version {
            return corrupt(format!("{} format version {version} (this build reads {})", kind.what, kind.version));
        }
        if footer.body_len != body as u64 {
            return corrupt("footer length does not match the file size (truncated?)");
        }
        let code = std::str::from_utf8(&bytes[16..24]).unwrap_or("").trim_end_matches('\0');
        if code != language_code {
            return corrupt(format!("{} holds language {code:?}, expected {language_code}", kind.what));
        }
        if verify == Verify::Checksum && xxhash_rust::xxh3::xxh3_64(&bytes[..body]) != footer.checksum {
            return corrupt("checksum mismatch");
        }
        let row = std::mem::size_of::<SectionEntry>();
        let table_len = u32_at(bytes, kind.section_count_at) as usize * row;
        let sections = match bytes.get(kind.header_len..kind.header_len + table_len) {
            Some(t) => t.chunks_exact(row).map(bytemuck::pod_read_unaligned).collect(),
            None => return corrupt("section table out of bounds"),
        };
        Ok(Envelope { bytes, body, sections })
    }

    /// Bytes before the footer: every offset in the file must stay below this.
    pub fn body(&self) -> usize {
        self.body
    }

    /// True when the file has a section of `kind`.
    pub fn has(&self, kind: u32) -> bool {
        self.sections.iter().any(|s| s.kind == kind)
    }

    /// The byte range of the section of `kind`, its checksum verified when `check` is set.
    pub fn find(&self, kind: u32, check: bool) -> Result<Range<usize>, OpenError> {
        let s = self
            .sections
            .iter()
            .find(|s| s.kind == kind)
            .ok_or_else(|| OpenError::Corrupt(format!("section {kind} missing")))?;
        let range = checked_range(s.offset, s.len, self.body)?;
        if check && xxhash_rust::xxh3::xxh3_64(&self.bytes[range.clone()]) != s.checksum {
            return corrupt(format!("section {kind} checksum mismatch"));
        }
        Ok(range)
    }
}

/// Why a mapped file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Reading or mapping the file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is not a valid file of its kind and format version.
    #[error("corrupt index: {0}")]
    Corrupt(String),
}

/// `Err(OpenError::Corrupt(what))`.
pub fn corrupt<T>(what: impl Into<String>) -> Result<T, OpenError> {
    Err(OpenError::Corrupt(what.into()))
}

/// How much of a file to check when opening it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// Header, footer, section table and every directory record: touches a few pages only.
    Structure,
    /// Also the XXH3 checksum of the whole file (reads every page).
    Checksum,
}

/// `offset..offset + len` if it lies within `body` and starts 8-byte aligned.
pub fn checked_range(offset: u64, len: u64, body: usize) -> Result<Range<usize>, OpenError> {
    let end = offset.checked_add(len).filter(|&e| e <= body as u64);
    match end {
        Some(end) if offset % ALIGN as u64 == 0 => Ok(offset as usize..end as usize),
        _ => corrupt(format!("range {offset}+{len} outside the file or misaligned")),
    }
}

/// A checked zero-copy view of `bytes[range]` as an array of `T` (size and alignment verified).
pub fn cast<T: Pod>(bytes: &[u8], range: Range<usize>) -> Result<&[T], OpenError> {
    let slice = bytes.get(range).ok_or_else(|| OpenError::Corrupt("range out of bounds".into()))?;
    bytemuck::try_cast_slice(slice).map_err(|e| OpenError::Corrupt(format!("bad array: {e:?}")))
}
