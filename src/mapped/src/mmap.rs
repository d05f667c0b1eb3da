//! Memory-mapped files: the only module of the workspace that uses `unsafe`.
//!
//! Mapping a file is `unsafe` because the mapped bytes could change under us if another
//! process modified the file. The service never writes an index file in place: `indexbuild`
//! and the index manager write to a temporary name and `rename` it over the old file, which
//! replaces the directory entry but leaves any existing mapping on the old inode intact.
//! That discipline is what makes the one `unsafe` block below sound in practice.
//!
//! Zero-copy views of the mapped bytes as `&[u32]`, `&[u64]` and so on go through
//! [`bytemuck`]'s checked casts, which verify size and alignment and need no `unsafe` here.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use memmap2::{Advice, Mmap};

/// A read-only memory map of a whole file, shared cheaply between views.
#[derive(Clone)]
pub struct MappedFile {
    map: Arc<Mmap>,
}

impl MappedFile {
    /// Maps `path` read-only. Pages are read from disk on first touch, not here.
    pub fn open(path: &Path) -> io::Result<MappedFile> {
        let file = File::open(path)?;
        // SAFETY: index files are immutable once renamed into place (see the module docs), so
        // the mapped bytes do not change for the lifetime of the map.
        let map = unsafe { Mmap::map(&file)? };
        // Pattern queries touch postings and entries in no particular order.
        let _ = map.advise(Advice::Random);
        Ok(MappedFile { map: Arc::new(map) })
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Length of the file in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A cheap owned view of `range` (which must lie inside the file).
    pub fn slice(&self, range: Range<usize>) -> Option<MappedBytes> {
        (range.start <= range.end && range.end <= self.len()).then(|| MappedBytes { file: self.clone(), range })
    }
}

/// An owned, cheaply clonable view of part of a [`MappedFile`]; used as the backing store of
/// the `fst` map so it reads straight from the mapping.
#[derive(Clone)]
pub struct MappedBytes {
    file: MappedFile,
    range: Range<usize>,
}

impl AsRef<[u8]> for MappedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.file.bytes()[self.range.clone()]
    }
}
