//! The records every mapped file shares: the section table row and the footer. Each file kind
//! (`docs/index-format.md`, `docs/clue-format.md`) adds its own header and sections around
//! them. Integers are little-endian; every record and array starts at a multiple of [`ALIGN`].

use bytemuck::{Pod, Zeroable};

/// Alignment of every section and array in a file.
pub const ALIGN: usize = 8;

/// One row of the section table (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SectionEntry {
    /// The file kind's section number.
    pub kind: u32,
    /// Zero.
    pub reserved: u32,
    /// Absolute offset of the section.
    pub offset: u64,
    /// Length of the section in bytes.
    pub len: u64,
    /// XXH3-64 of the section's bytes. Readers check it for the small sections at open, which
    /// keeps a corrupt file from reaching a parser (the `fst` maps); the bulk data is covered
    /// by the footer checksum.
    pub checksum: u64,
}

/// Fixed-size footer at the very end (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Footer {
    /// Bytes covered by the checksum: everything before the footer.
    pub body_len: u64,
    /// XXH3-64 of those bytes.
    pub checksum: u64,
    /// Zero.
    pub reserved: u64,
    /// The file kind's footer magic.
    pub magic: [u8; 8],
}

const _: () = {
    assert!(std::mem::size_of::<SectionEntry>() == 32);
    assert!(std::mem::size_of::<Footer>() == 32);
};
