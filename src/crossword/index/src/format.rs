//! The on-disk records of an index file (`docs/index-format.md` describes the layout byte by
//! byte). All integers are little-endian; every record and array starts at a multiple of 8
//! bytes so the mapped file can be viewed zero-copy. The section table rows and the footer are
//! the envelope's (`mapped_file::format`).

use bytemuck::{Pod, Zeroable};

/// The section table row, the footer and the alignment every mapped file shares.
pub use mapped_file::format::{Footer, SectionEntry, ALIGN};

/// First eight bytes of every index file.
pub const MAGIC: [u8; 8] = *b"XWINDEX\0";
/// Last eight bytes of every index file.
pub const FOOTER_MAGIC: [u8; 8] = *b"XWIFOOT\0";
/// Format version written by this build; readers refuse other versions.
pub const FORMAT_VERSION: u32 = 1;
/// Longest entry, in cells (the largest grid is 23x23).
pub const MAX_LEN: usize = 23;

/// Section kinds of the section table. Readers skip kinds they do not know.
pub mod section {
    /// The cell table: every distinct cell, sorted by UTF-8 bytes.
    pub const CELLS: u32 = 1;
    /// The `fst` map from entry text to `(length << 32) | rank`.
    pub const FST: u32 = 2;
    /// `MAX_LEN + 1` [`super::GroupDir`] records, indexed by entry length.
    pub const GROUPS: u32 = 3;
    /// UTF-8 JSON describing how the index was built (sources, options, counts).
    pub const META: u32 = 4;
    /// Optional character folds learnt from the corpus (Chinese Traditional to Simplified):
    /// `[from: u32, to: u32]` pairs of code points sorted by `from`, applied to user text
    /// before the language's own rules.
    pub const FOLD: u32 = 5;
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
    /// Number of distinct entries.
    pub entry_count: u32,
    /// Number of distinct cells.
    pub cell_count: u32,
    /// Longest entry length the file can hold ([`MAX_LEN`]).
    pub max_len: u32,
    /// Number of [`SectionEntry`] records right after the header.
    pub section_count: u32,
    /// Zero; reserved for flags.
    pub flags: u32,
    /// Zero.
    pub reserved: [u8; 20],
}

/// Where the arrays of one length group live (64 bytes). Entries of a group are sorted by
/// score, best first; an entry's position in that order is its *rank*.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct GroupDir {
    /// Entries in the group.
    pub count: u32,
    /// Cells per entry (the group's length).
    pub len: u32,
    /// Offset of `[u8; count]`: score per rank.
    pub scores: u64,
    /// Offset of `[u32; count + 1]`: byte offsets into the text blob per rank.
    pub text_offsets: u64,
    /// Offset of the UTF-8 text blob.
    pub text: u64,
    /// Length of the text blob.
    pub text_len: u64,
    /// Offset of `[u16; count * len]`: cell ids per rank, row-major.
    pub cells: u64,
    /// Offset of `[PositionDir; len]`.
    pub positions: u64,
    /// Zero.
    pub reserved: u64,
}

/// The posting sets of one (length, position) pair (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct PositionDir {
    /// Offset of `[PostingRef; count]`, sorted by cell id.
    pub refs: u64,
    /// Number of cells that occur at this position.
    pub count: u32,
    /// Zero.
    pub reserved: u32,
}

/// Posting kind: a bitset of `ceil(count / 64)` little-endian `u64` words; bit `r` is rank `r`.
pub const POSTING_BITSET: u32 = 0;
/// Posting kind: an ascending list of `u32` ranks.
pub const POSTING_LIST: u32 = 1;

/// The set of ranks having one cell at one position (24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct PostingRef {
    /// The cell id.
    pub cell: u32,
    /// [`POSTING_BITSET`] or [`POSTING_LIST`].
    pub kind: u32,
    /// Offset of the words or ranks.
    pub offset: u64,
    /// Number of `u64` words (bitset) or `u32` ranks (list).
    pub items: u32,
    /// Number of ranks in the set.
    pub cardinality: u32,
}

const _: () = {
    assert!(std::mem::size_of::<Header>() == 64);
    assert!(std::mem::size_of::<GroupDir>() == 64);
    assert!(std::mem::size_of::<PositionDir>() == 16);
    assert!(std::mem::size_of::<PostingRef>() == 24);
};

/// Posting sets smaller than `count / LIST_DENSITY` ranks are stored as lists: at that point a
/// list of `u32` and a bitset take the same space.
pub const LIST_DENSITY: u32 = 32;
