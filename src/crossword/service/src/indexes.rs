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
use std::time::{Duration, Instant, SystemTime};

use parking_lot::{Mutex, RwLock};

use crossword_clues::ClueBase;
use crossword_index::{Index, OpenError, PatternError, Verify};
use crossword_lang::Language;
use mapped_file::install_compressed;

/// How often a mapped clue file is compared with the one on disk (so an
/// `indexbuild clues import` reaches a running server without a restart).
const CLUE_RECHECK: Duration = Duration::from_secs(1);

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
    clues: RwLock<Option<MappedClues>>,
    loading: Mutex<()>,
    last_used: AtomicU64,
}

/// A mapped clue file, the file state it was loaded from, and when that was last compared.
struct MappedClues {
    base: Arc<ClueBase>,
    stamp: FileStamp,
    checked: Instant,
}

/// Length and modification time of a plain file, and modification time of its `.zst` form.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp(Option<(u64, SystemTime)>, Option<SystemTime>);

impl FileStamp {
    fn of(plain: &Path, packed: &Path) -> FileStamp {
        let stat = |p: &Path| p.metadata().ok().and_then(|m| Some((m.len(), m.modified().ok()?)));
        FileStamp(stat(plain), stat(packed).map(|(_, t)| t))
    }

    /// Neither file exists.
    fn is_missing(&self) -> bool {
        self.0.is_none() && self.1.is_none()
    }

    /// The compressed file must be installed: the plain one is missing or older.
    fn needs_install(&self) -> bool {
        match (&self.0, self.1) {
            (None, _) => true,
            (Some((_, plain)), Some(packed)) => packed > *plain,
            (Some(_), None) => false,
        }
    }
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
                clues: RwLock::new(None),
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

    /// The whole-body checksums of `language`'s unpacked index and clue files, read from their
    /// footers (XXH3-64, docs/index-format.md and docs/clue-format.md): the same files give the
    /// same values on every node. `None` for a file that is absent, not yet unpacked from its
    /// `.zst`, or without a valid footer.
    pub fn checksums(&self, language: Language) -> (Option<u64>, Option<u64>) {
        (
            footer_checksum(&self.index_path(language), b"XWIFOOT\0"),
            footer_checksum(&self.clues_path(language), b"XWCFOOT\0"),
        )
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

    /// Path of the mapped clue file of `language`.
    pub fn clues_path(&self, language: Language) -> PathBuf {
        self.dir.join(format!("{}.cwc", language.code()))
    }

    /// Path of the compressed clue file of `language`.
    pub fn compressed_clues_path(&self, language: Language) -> PathBuf {
        self.dir.join(format!("{}.cwc.zst", language.code()))
    }

    /// Total bytes mapped right now (word indexes and clue collections).
    pub fn mapped_bytes(&self) -> u64 {
        self.slots
            .iter()
            .map(|s| {
                let index = s.index.read().as_ref().map_or(0, |i| i.mapped_bytes() as u64);
                let clues = s.clues.read().as_ref().map_or(0, |c| c.base.mapped_bytes() as u64);
                index + clues
            })
            .sum()
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

    /// The clue collection of `language`, loading it if needed; `None` when the index
    /// directory has no clue file for it. A file replaced on disk (a clue import) is noticed
    /// within a second and mapped afresh; lookups in flight keep the old mapping.
    pub fn clues(&self, language: Language) -> Result<Option<Arc<ClueBase>>, LoadError> {
        let slot = self.slot(language);
        slot.last_used.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        if let Some(c) = slot.clues.read().as_ref() {
            if c.checked.elapsed() < CLUE_RECHECK {
                return Ok(Some(c.base.clone()));
            }
        }
        let (plain, packed) = (self.clues_path(language), self.compressed_clues_path(language));
        let stamp = FileStamp::of(&plain, &packed);
        if let Some(c) = slot.clues.write().as_mut() {
            if c.stamp == stamp {
                c.checked = Instant::now();
                return Ok(Some(c.base.clone()));
            }
        }
        let _loading = slot.loading.lock();
        if stamp.is_missing() {
            slot.clues.write().take();
            return Ok(None);
        }
        let code = language.code();
        let fail = |e: OpenError| LoadError::Failed(code, e);
        if stamp.needs_install() {
            install_compressed(&packed, &plain, |tmp| ClueBase::open(tmp, language, Verify::Checksum).map(drop))
                .map_err(fail)?;
        }
        let started = Instant::now();
        let base = Arc::new(ClueBase::open(&plain, language, Verify::Structure).map_err(fail)?);
        self.loads.fetch_add(1, Ordering::Relaxed);
        self.load_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let stamp = FileStamp::of(&plain, &packed);
        *slot.clues.write() = Some(MappedClues { base: base.clone(), stamp, checked: Instant::now() });
        self.evict_over_budget(language);
        Ok(Some(base))
    }

    /// Drops a language's mappings (they reload on next use).
    pub fn evict(&self, language: Language) {
        let slot = self.slot(language);
        slot.index.write().take();
        slot.clues.write().take();
    }

    fn evict_over_budget(&self, keep: Language) {
        while self.mapped_bytes() > self.budget_bytes {
            let victim = self
                .slots
                .iter()
                .filter(|s| s.language != keep && (s.index.read().is_some() || s.clues.read().is_some()))
                .min_by_key(|s| s.last_used.load(Ordering::Relaxed));
            match victim {
                Some(s) => {
                    s.index.write().take();
                    s.clues.write().take();
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
        let stamp = FileStamp::of(&plain, &packed);
        if stamp.is_missing() {
            return Err(LoadError::NotAvailable(code));
        }
        if stamp.needs_install() {
            // Checksummed while installing; the open below only re-checks the structure.
            install_compressed(&packed, &plain, |tmp| Index::open(tmp, language, Verify::Checksum).map(drop))
                .map_err(fail)?;
        }
        Index::open(&plain, language, Verify::Structure).map_err(fail)
    }
}

/// The checksum field of a 32-byte footer (`body_len`, `checksum`, reserved, `magic`) at the end
/// of the file at `path`, when the magic and the body length match.
fn footer_checksum(path: &Path, magic: &[u8; 8]) -> Option<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len < 32 {
        return None;
    }
    file.seek(SeekFrom::Start(len - 32)).ok()?;
    let mut footer = [0u8; 32];
    file.read_exact(&mut footer).ok()?;
    let field = |at: usize| u64::from_le_bytes(footer[at..at + 8].try_into().unwrap_or_default());
    (&footer[24..32] == magic && field(0) == len - 32).then(|| field(8))
}

#[cfg(test)]
mod tests {
    use crossword_index::{IndexWriter, Pattern};

    use super::*;

    fn lang(code: &str) -> Language {
        Language::from_code(code).unwrap()
    }

    #[test]
    fn manager_loads_compressed_and_evicts() {
        let dir = tempfile::tempdir().unwrap();
        for code in ["en", "de", "fr"] {
            let l = lang(code);
            let mut w = IndexWriter::new(l);
            for i in 0..2000 {
                let letter = |n: usize| char::from(b'A' + (n % 26) as u8);
                // Two-letter entries first (`A_` finds them), then four-letter ones.
                let word = match i {
                    0..26 => format!("A{}", letter(i)),
                    _ => format!("A{}{}{}", letter(i), letter(i / 26), letter(i / 676)),
                };
                w.insert(&word, (i % 100) as u8).unwrap();
            }
            let (bytes, _) = w.to_bytes().unwrap();
            let packed = zstd::encode_all(&bytes[..], 3).unwrap();
            std::fs::write(dir.path().join(format!("{code}.cwi.zst")), packed).unwrap();
        }
        let one = std::fs::read(dir.path().join("en.cwi.zst")).unwrap();
        let one = zstd::decode_all(&one[..]).unwrap().len() as u64;
        let m = IndexManager::new(dir.path(), one * 2 + 1);
        assert!(m.status().iter().filter(|s| s.available).count() == 3);
        assert!(matches!(m.get(lang("it")), Err(LoadError::NotAvailable("it"))));
        let en = m.get(lang("en")).unwrap();
        assert!(dir.path().join("en.cwi").is_file(), "installed from the .zst");
        m.get(lang("de")).unwrap();
        m.get(lang("en")).unwrap(); // en is now more recent than de
        m.get(lang("fr")).unwrap(); // over budget: de goes
        let loaded: Vec<&str> = m.status().iter().filter(|s| s.loaded).map(|s| s.language.code()).collect();
        assert_eq!(loaded, ["en", "fr"]);
        // A handle taken before eviction keeps working.
        m.evict(lang("en"));
        assert_eq!(en.search(&Pattern::parse(lang("en"), "A_").unwrap(), 0, 1).len(), 1);
        assert_eq!(m.load_stats().0, 3);
    }
}
