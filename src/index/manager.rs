//! Opening languages on first use and evicting the least recently used ones.
//!
//! An index directory holds, per language, `CODE.cwi` (the mapped file) and/or `CODE.cwi.zst`
//! (the same file zstd-compressed, as distributed). On first use of a language the manager
//! decompresses the `.zst` once if the `.cwi` is missing or older, checks its checksum, renames
//! it into place and maps it. Each language loads under its own lock, so a slow load never
//! blocks queries in other languages. When the mapped total exceeds the memory budget, the
//! least recently used other languages are dropped; queries still holding one keep it alive
//! until they finish.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use super::{Index, OpenError, PatternError, Verify};
use crate::lang::Language;

/// Why a language's index is not usable.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No index file for the language in the index directory.
    #[error("no index for language {0}")]
    NotAvailable(&'static str),
    /// The file exists but could not be read or is corrupt.
    #[error("index for language {0} could not be loaded: {1}")]
    Failed(&'static str, OpenError),
}

/// An entry returned by [`IndexManager::search`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Word {
    /// The entry, normalized for its language.
    pub word: String,
    /// Quality score, 0 to 100.
    pub score: u8,
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The language's index is missing or unreadable.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The pattern is invalid for the language.
    #[error(transparent)]
    Pattern(#[from] PatternError),
}

/// Per-language state for GET /status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LanguageStatus {
    /// The language.
    pub language: Language,
    /// An index file exists, so word search and fill can work.
    pub available: bool,
    /// The index is mapped right now.
    pub loaded: bool,
}

struct Slot {
    language: Language,
    index: RwLock<Option<Arc<Index>>>,
    loading: Mutex<()>,
    last_used: AtomicU64,
}

/// Loads language indexes on demand and keeps the mapped total under a budget.
pub struct IndexManager {
    dir: PathBuf,
    budget_bytes: u64,
    slots: Vec<Slot>,
    clock: AtomicU64,
    loads: AtomicU64,
    load_nanos: AtomicU64,
}

impl IndexManager {
    /// A manager over `dir` that keeps at most `budget_bytes` mapped (at least one language is
    /// always kept, whatever its size).
    pub fn new(dir: impl Into<PathBuf>, budget_bytes: u64) -> IndexManager {
        let slots = Language::all()
            .map(|language| Slot {
                language,
                index: RwLock::new(None),
                loading: Mutex::new(()),
                last_used: AtomicU64::new(0),
            })
            .collect();
        IndexManager {
            dir: dir.into(),
            budget_bytes,
            slots,
            clock: AtomicU64::new(1),
            loads: AtomicU64::new(0),
            load_nanos: AtomicU64::new(0),
        }
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the mapped index file of `language`.
    pub fn index_path(&self, language: Language) -> PathBuf {
        self.dir.join(format!("{}.cwi", language.code()))
    }

    /// Path of the compressed index file of `language`.
    pub fn compressed_path(&self, language: Language) -> PathBuf {
        self.dir.join(format!("{}.cwi.zst", language.code()))
    }

    fn slot(&self, language: Language) -> &Slot {
        // Every language has a slot, in `Language::all()` order.
        let i = Language::all().position(|l| l == language).unwrap_or(0);
        &self.slots[i]
    }

    /// True when an index file (plain or compressed) exists for `language`.
    pub fn is_available(&self, language: Language) -> bool {
        self.index_path(language).is_file() || self.compressed_path(language).is_file()
    }

    /// Available and loaded flags for every language.
    pub fn status(&self) -> Vec<LanguageStatus> {
        self.slots
            .iter()
            .map(|s| LanguageStatus {
                language: s.language,
                available: self.is_available(s.language),
                loaded: s.index.read().is_some(),
            })
            .collect()
    }

    /// Total bytes mapped right now.
    pub fn mapped_bytes(&self) -> u64 {
        self.slots.iter().filter_map(|s| s.index.read().as_ref().map(|i| i.mapped_bytes() as u64)).sum()
    }

    /// Number of loads so far and their total time.
    pub fn load_stats(&self) -> (u64, Duration) {
        (self.loads.load(Ordering::Relaxed), Duration::from_nanos(self.load_nanos.load(Ordering::Relaxed)))
    }

    /// The index of `language` if it is mapped now (never loads; for callers that must not block).
    pub fn get_loaded(&self, language: Language) -> Option<Arc<Index>> {
        let slot = self.slot(language);
        let index = slot.index.read().clone()?;
        slot.last_used.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        Some(index)
    }

    /// The index of `language`, loading it if needed.
    pub fn get(&self, language: Language) -> Result<Arc<Index>, LoadError> {
        let slot = self.slot(language);
        slot.last_used.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        if let Some(index) = slot.index.read().as_ref() {
            return Ok(index.clone());
        }
        let _loading = slot.loading.lock();
        if let Some(index) = slot.index.read().as_ref() {
            return Ok(index.clone());
        }
        let started = Instant::now();
        let index = Arc::new(self.load(language)?);
        self.loads.fetch_add(1, Ordering::Relaxed);
        self.load_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        *slot.index.write() = Some(index.clone());
        self.evict_over_budget(language);
        Ok(index)
    }

    /// The best entries of `language` matching `pattern` (`_` or `?` for an unknown cell; the
    /// rest normalized like any answer), scoring at least `min_score`, best first, at most
    /// `limit`.
    pub fn search(
        &self,
        language: Language,
        pattern: &str,
        min_score: u32,
        limit: usize,
    ) -> Result<Vec<Word>, SearchError> {
        let index = self.get(language)?;
        let pattern = index.pattern(pattern)?;
        Ok(index
            .search(&pattern, min_score, limit)
            .into_iter()
            .map(|h| Word { word: h.word.to_owned(), score: h.score })
            .collect())
    }

    /// Scores of the known words among `words` (normalized), in input order; unknown words are
    /// omitted.
    pub fn scores<'w>(
        &self,
        language: Language,
        words: impl IntoIterator<Item = &'w str>,
    ) -> Result<Vec<(String, u8)>, LoadError> {
        Ok(self.get(language)?.scores(words))
    }

    /// Drops a language's mapping (it reloads on next use).
    pub fn evict(&self, language: Language) {
        self.slot(language).index.write().take();
    }

    fn evict_over_budget(&self, keep: Language) {
        while self.mapped_bytes() > self.budget_bytes {
            let victim = self
                .slots
                .iter()
                .filter(|s| s.language != keep && s.index.read().is_some())
                .min_by_key(|s| s.last_used.load(Ordering::Relaxed));
            match victim {
                Some(s) => {
                    s.index.write().take();
                }
                None => break,
            }
        }
    }

    fn load(&self, language: Language) -> Result<Index, LoadError> {
        let code = language.code();
        let plain = self.index_path(language);
        let packed = self.compressed_path(language);
        let fail = |e: OpenError| LoadError::Failed(code, e);
        let stale = match (plain.metadata(), packed.metadata()) {
            (Err(_), Err(_)) => return Err(LoadError::NotAvailable(code)),
            (Err(_), Ok(_)) => true,
            (Ok(_), Err(_)) => false,
            (Ok(p), Ok(z)) => match (p.modified(), z.modified()) {
                (Ok(p), Ok(z)) => z > p,
                _ => false,
            },
        };
        if stale {
            // Checksummed while installing; the open below only re-checks the structure.
            install_compressed(&packed, &plain, language).map_err(fail)?;
        }
        Index::open(&plain, language, Verify::Structure).map_err(fail)
    }
}

/// Decompresses `packed` next to `plain`, verifies it, and renames it into place.
pub(crate) fn install_compressed(packed: &Path, plain: &Path, language: Language) -> Result<(), OpenError> {
    let tmp = plain.with_extension(format!("cwi.tmp{}", std::process::id()));
    let result = (|| {
        let input = std::fs::File::open(packed)?;
        let mut output = std::fs::File::create(&tmp)?;
        zstd::stream::copy_decode(input, &mut output)?;
        output.sync_all()?;
        drop(output);
        Index::open(&tmp, language, Verify::Checksum)?;
        std::fs::rename(&tmp, plain)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
