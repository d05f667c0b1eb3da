//! Memory-mapped, checksummed, versioned files, and the workspace's only `unsafe` code.
//!
//! Every mapped file of the product (the crossword word index `CODE.cwi`, the clue collection
//! `CODE.cwc`) has the same envelope, after tantivy's footer: a fixed header starting with an
//! eight-byte magic number, a format version, the header length and a language code; a table of
//! sections, each with an XXH3-64 checksum; the sections, every array 8-byte aligned; and a
//! 32-byte footer with the body's length, its checksum and a second magic number. Readers map
//! the file and view its arrays in place (zero-copy); nothing is deserialized at load.
//!
//! * [`MappedFile`] / [`MappedBytes`] (module `mmap`): the one `unsafe` block, `Mmap::map`.
//! * [`Envelope`]: checks size, alignment, magic numbers, version, language, footer length and
//!   (on request) the whole checksum, and reads the section table; [`checked_range`] and
//!   [`cast`] give checked zero-copy views.
//! * [`Out`]: the writer side; [`replace_file`], [`write_atomically`] and
//!   [`install_compressed`]: the one way a file on disk is replaced.
//!
//! ```
//! use mapped_file::{Envelope, FileKind, MappedFile, Out, Verify, write_atomically};
//!
//! // A file with a 32-byte header (magic, version, header length, language, section count)
//! // and one section holding three u32.
//! let kind = FileKind {
//!     what: "demo file",
//!     magic: *b"DEMOFILE",
//!     footer_magic: *b"DEMOFOOT",
//!     version: 1,
//!     header_len: 32,
//!     section_count_at: 24,
//! };
//! let mut out = Out::default();
//! out.bytes.resize(32 + 32, 0); // header, then one section table row
//! let at = out.put(&[10u32, 20, 30]);
//! let row = out.section(7, at, 12);
//! out.bytes[..8].copy_from_slice(&kind.magic);
//! out.bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
//! out.bytes[12..16].copy_from_slice(&32u32.to_le_bytes());
//! out.bytes[16..18].copy_from_slice(b"en");
//! out.bytes[24..28].copy_from_slice(&1u32.to_le_bytes());
//! out.bytes[32..64].copy_from_slice(bytemuck::bytes_of(&row));
//! let bytes = out.finish(kind.footer_magic);
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("demo.bin");
//! write_atomically(&path, &bytes)?;
//! let file = MappedFile::open(&path)?;
//! let envelope = Envelope::open(file.bytes(), &kind, "en", Verify::Checksum)?;
//! let section = envelope.find(7, true)?;
//! let values: &[u32] = mapped_file::cast(file.bytes(), section)?;
//! assert_eq!(values, [10, 20, 30]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod envelope;
pub mod format;
mod mmap;
mod write;

pub use envelope::{cast, checked_range, corrupt, Envelope, FileKind, OpenError, Verify};
pub use mmap::{MappedBytes, MappedFile};
pub use write::{install_compressed, replace_file, write_atomically, Out};

#[cfg(target_endian = "big")]
compile_error!("mapped files are little-endian and viewed in place; big-endian hosts are not supported");
