//! The on-disk records of a clue collection file (`CODE.cwc`; `docs/clue-format.md` describes
//! the layout byte by byte). It follows the index file's conventions: little-endian integers,
//! every array 8-byte aligned, a section table with per-section XXH3 checksums and a footer
//! checksum over the whole body. The section table rows and the footer are the
//! envelope's [`SectionEntry`](mapped_file::format::SectionEntry) and
//! [`Footer`](mapped_file::format::Footer).

use bytemuck::{Pod, Zeroable};

/// First eight bytes of every clue file.
pub const MAGIC: [u8; 8] = *b"XWCLUES\0";
/// Last eight bytes of every clue file.
pub const FOOTER_MAGIC: [u8; 8] = *b"XWCFOOT\0";
/// Format version written by this build; readers refuse other versions.
pub const FORMAT_VERSION: u32 = 1;

/// Section kinds of the section table. Readers skip kinds they do not know.
pub mod section {
    /// The `fst` map from normalized answer to its ordinal.
    pub const FST: u32 = 1;
    /// `[u32; answer_count + 1]`: the first record of each answer (records of answer `a` are
    /// `first[a]..first[a + 1]`).
    pub const ANSWERS: u32 = 2;
    /// `[ClueRecord; record_count]`, grouped by answer, best first within an answer.
    pub const RECORDS: u32 = 3;
    /// The UTF-8 text of every record, back to back.
    pub const TEXT: u32 = 4;
    /// UTF-8 JSON: how the file was built, and the built-in generator's templates.
    pub const META: u32 = 5;
}

/// Fixed-size header at offset 0 (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: [u8; 8],
    /// [`FORMAT_VERSION`].
    pub version: u32,
    /// Size of this header (64).
    pub header_len: u32,
    /// Language code, ASCII, zero-padded.
    pub language: [u8; 8],
    /// Number of distinct answers.
    pub answer_count: u32,
    /// Number of records.
    pub record_count: u32,
    /// Number of section table rows right after the header.
    pub section_count: u32,
    /// Zero; reserved for flags.
    pub flags: u32,
    /// Zero.
    pub reserved: [u8; 24],
}

/// One clue or one piece of generator material (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ClueRecord {
    /// Offset of the text inside the TEXT section.
    pub text_offset: u64,
    /// Length of the text in bytes.
    pub text_len: u16,
    /// [`crate::Source`] as a number (0 published, 1 dictionary, 2 original, 3 ai).
    pub source: u8,
    /// [`crate::Kind`] as a number; kinds from 64 up are generator material, never
    /// served as clues.
    pub kind: u8,
    /// Times printed for `published` records, uses for `original` ones, else 0.
    pub count: u32,
}

const _: () = {
    assert!(std::mem::size_of::<Header>() == 64);
    assert!(std::mem::size_of::<ClueRecord>() == 16);
};
