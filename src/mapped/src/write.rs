//! Writing mapped files: an aligned append-only buffer, section table rows with their
//! checksums, the footer, and atomic replacement of a file on disk.
//!
//! A file is never written in place: the new content goes to a temporary name beside it
//! (`NAME.tmpPID`, so the name still tells what it is), is synced, optionally checked, and is
//! renamed over the old file. Readers see the old file or the new one, never a part, and
//! existing mappings of the old file stay valid; on any failure the temporary file is removed.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use bytemuck::Pod;

use crate::format::{Footer, SectionEntry, ALIGN};

/// An append-only byte buffer that keeps every array [`ALIGN`]-byte aligned.
#[derive(Default)]
pub struct Out {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Out {
    /// Pads to the next multiple of [`ALIGN`] and returns the new length.
    pub fn align(&mut self) -> usize {
        let padded = self.bytes.len().next_multiple_of(ALIGN);
        self.bytes.resize(padded, 0);
        padded
    }

    /// Appends an aligned array and returns its offset.
    pub fn put<T: Pod>(&mut self, items: &[T]) -> u64 {
        let at = self.align();
        self.bytes.extend_from_slice(bytemuck::cast_slice(items));
        at as u64
    }

    /// A section table row for bytes already written, with their checksum.
    pub fn section(&self, kind: u32, offset: u64, len: u64) -> SectionEntry {
        let bytes = &self.bytes[offset as usize..(offset + len) as usize];
        SectionEntry { kind, reserved: 0, offset, len, checksum: xxhash_rust::xxh3::xxh3_64(bytes) }
    }

    /// Aligns the end and appends the footer (with `footer_magic`) over everything before it;
    /// returns the finished file.
    pub fn finish(mut self, footer_magic: [u8; 8]) -> Vec<u8> {
        self.align();
        let body_len = self.bytes.len() as u64;
        let checksum = xxhash_rust::xxh3::xxh3_64(&self.bytes);
        let footer = Footer { body_len, checksum, reserved: 0, magic: footer_magic };
        self.bytes.extend_from_slice(bytemuck::bytes_of(&footer));
        self.bytes
    }
}

/// Replaces `path` atomically: `write` fills a temporary file beside it, which is synced,
/// passed to `check` (which may open and validate it), and renamed over `path`. On any
/// failure the temporary file is removed and `path` is untouched.
pub fn replace_file<E: From<io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
    check: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!("{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        write(&mut file)?;
        file.sync_all()?;
        drop(file);
        check(&tmp)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` atomically (see [`replace_file`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_file(path, |file| file.write_all(bytes), |_| Ok::<(), io::Error>(()))
}

/// Installs the distributed, zstd-compressed form of a file: decompresses `packed` beside
/// `plain`, runs `check` on the result (a full checksum, typically), and renames it into
/// place.
pub fn install_compressed<E: From<io::Error>>(
    packed: &Path,
    plain: &Path,
    check: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    replace_file(plain, |file| zstd::stream::copy_decode(File::open(packed)?, file), check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_check_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cwi");
        write_atomically(&path, b"old").unwrap();
        let refused = replace_file(&path, |f| f.write_all(b"new"), |_| Err(io::Error::other("bad")));
        assert!(refused.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary file is gone");
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn compressed_files_install_after_their_check() {
        let dir = tempfile::tempdir().unwrap();
        let (packed, plain) = (dir.path().join("x.cwi.zst"), dir.path().join("x.cwi"));
        std::fs::write(&packed, zstd::encode_all(&b"payload"[..], 3).unwrap()).unwrap();
        install_compressed(&packed, &plain, |tmp| {
            assert_eq!(std::fs::read(tmp)?, b"payload", "the check sees the decompressed bytes");
            Ok::<(), io::Error>(())
        })
        .unwrap();
        assert_eq!(std::fs::read(&plain).unwrap(), b"payload");
    }

    #[test]
    fn the_footer_covers_the_aligned_body() {
        let mut out = Out::default();
        let at = out.put(&[1u8, 2, 3]);
        assert_eq!(at, 0);
        assert_eq!(out.put(&[7u32]), 8, "arrays start aligned");
        let row = out.section(9, 8, 4);
        assert_eq!((row.kind, row.offset, row.len), (9, 8, 4));
        assert_eq!(row.checksum, xxhash_rust::xxh3::xxh3_64(&7u32.to_le_bytes()));
        let file = out.finish(*b"TESTFOOT");
        assert_eq!(file.len(), 16 + 32);
        let footer: Footer = bytemuck::pod_read_unaligned(&file[16..]);
        assert_eq!(footer.body_len, 16);
        assert_eq!(footer.checksum, xxhash_rust::xxh3::xxh3_64(&file[..16]));
        assert_eq!(&footer.magic, b"TESTFOOT");
    }
}
