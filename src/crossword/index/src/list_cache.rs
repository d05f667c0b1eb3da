//! Indexes built from a constructor's own word list, kept in a cache directory so the second
//! run with the same list maps the file instead of building it again.
//!
//! * The key is the XXH3-128 of the list's bytes, the language, the build options (score scale
//!   and default score), the index format version and [`crate::writer::WRITER_VERSION`]: a
//!   changed list, option or writer gets a new file. The file is
//!   `DIR/<hash>-<lang>-s<scale>-d<default>-f<format>w<writer>.cwi`.
//! * A cached file is opened with the full checksum ([`Verify::Checksum`]); a damaged or
//!   truncated one is deleted and rebuilt.
//! * Files are written to a temporary name unique to the process and renamed into place, so two
//!   processes building the same list at once both end with a whole file (the last rename wins;
//!   the contents are the same), and a reader that mapped the older one keeps a valid map. No
//!   `fsync`: a file torn by a crash fails its checksum and is rebuilt.
//! * The default directory is `$XDG_CACHE_HOME/crossword/lists`, else
//!   `$HOME/.cache/crossword/lists`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crossword_lang::Language;
use mapped_file::Verify;

use crate::format::FORMAT_VERSION;
use crate::writer::{IndexWriter, WRITER_VERSION};
use crate::Index;

/// How a list is read into an index (part of the cache key).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListOptions {
    /// The list's top score (mapped to 100).
    pub scale_max: f32,
    /// The score of a line without one (0-100).
    pub default_score: u8,
}

/// Where the index came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The cached file, mapped.
    Hit,
    /// No cached file: built and kept.
    Built,
    /// The cached file was damaged (the reason): deleted, built again and kept.
    Rebuilt(String),
}

impl Outcome {
    /// `hit`, `built` or `rebuilt`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Hit => "hit",
            Outcome::Built => "built",
            Outcome::Rebuilt(_) => "rebuilt",
        }
    }
}

/// An index for a list, and how it was obtained.
pub struct Cached {
    /// The index, memory-mapped.
    pub index: Index,
    /// Its file in the cache.
    pub path: PathBuf,
    /// Hit, built or rebuilt.
    pub outcome: Outcome,
}

/// The default cache directory: `$XDG_CACHE_HOME/crossword/lists`, else
/// `$HOME/.cache/crossword/lists`.
pub fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("crossword").join("lists"))
}

/// The cache file name of a list's bytes under these options.
pub fn file_name(list: &[u8], language: Language, options: ListOptions) -> String {
    let hash = xxhash_rust::xxh3::xxh3_128(list);
    format!(
        "{hash:032x}-{}-s{}-d{}-f{FORMAT_VERSION}w{WRITER_VERSION}.cwi",
        language.code(),
        options.scale_max,
        options.default_score
    )
}

/// The list's index from `dir`, built and kept there when it is missing or damaged.
pub fn open_or_build(list: &Path, language: Language, options: ListOptions, dir: &Path) -> io::Result<Cached> {
    let bytes = std::fs::read(list)?;
    let path = dir.join(file_name(&bytes, language, options));
    let mut damaged = None;
    if path.exists() {
        match Index::open(&path, language, Verify::Checksum) {
            Ok(index) => return Ok(Cached { index, path, outcome: Outcome::Hit }),
            Err(e) => {
                damaged = Some(e.to_string());
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    std::fs::create_dir_all(dir)?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    };
    // Two halves of the list parsed at once (normalizing is most of the reading).
    let middle = text[text.len() / 2..].find('\n').map_or(text.len(), |i| text.len() / 2 + i + 1);
    let (first, second) = text.split_at(middle);
    let parse = |part: &str| crate::wordlist::parse(part, language, options.scale_max, options.default_score).words;
    let (mut words, rest) = std::thread::scope(|scope| {
        let other = scope.spawn(|| parse(second));
        let mine = parse(first);
        (mine, other.join())
    });
    words.extend(rest.map_err(|_| io::Error::other("reading the list failed"))?);
    let mut writer = IndexWriter::new(language);
    writer.reserve(words.len());
    for w in words {
        let _ = writer.insert_normalized(w.word, w.score);
    }
    writer.meta("source", serde_json::json!({ "list": list.display().to_string(), "key": path.file_name().map(|n| n.to_string_lossy().into_owned()) }));
    let (file_bytes, _) = writer.to_bytes()?;
    let tmp = dir.join(format!(
        ".{}.{}-{}.tmp",
        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id(),
        xxhash_rust::xxh3::xxh3_64(
            format!("{:?}{:?}", std::time::Instant::now(), std::thread::current().id()).as_bytes()
        )
    ));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&file_bytes)?;
        drop(file);
        std::fs::rename(&tmp, &path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let index = Index::open(&path, language, Verify::Structure).map_err(io::Error::other)?;
    let outcome = match damaged {
        Some(why) => Outcome::Rebuilt(why),
        None => Outcome::Built,
    };
    Ok(Cached { index, path, outcome })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTIONS: ListOptions = ListOptions { scale_max: 100.0, default_score: 50 };

    fn en() -> Language {
        Language::from_code("en").unwrap()
    }

    #[test]
    fn hit_miss_and_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("list.dict");
        std::fs::write(&list, "CAT;80\nDOG;60\nBIRD;40\n").unwrap();
        let cache = dir.path().join("cache");
        let first = open_or_build(&list, en(), OPTIONS, &cache).unwrap();
        assert_eq!(first.outcome, Outcome::Built);
        assert_eq!(first.index.score("CAT"), Some(80));
        let second = open_or_build(&list, en(), OPTIONS, &cache).unwrap();
        assert_eq!((second.outcome, &second.path), (Outcome::Hit, &first.path));
        // Another option or another list: another file.
        let other = open_or_build(&list, en(), ListOptions { default_score: 30, ..OPTIONS }, &cache).unwrap();
        assert_eq!(other.outcome, Outcome::Built);
        assert_ne!(other.path, first.path);
        std::fs::write(&list, "CAT;80\nDOG;60\nBIRD;40\nFISH;70\n").unwrap();
        let changed = open_or_build(&list, en(), OPTIONS, &cache).unwrap();
        assert_eq!(changed.outcome, Outcome::Built);
        assert_eq!(changed.index.score("FISH"), Some(70));
        // A damaged file is rebuilt.
        let mut bytes = std::fs::read(&changed.path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        std::fs::write(&changed.path, &bytes).unwrap();
        let again = open_or_build(&list, en(), OPTIONS, &cache).unwrap();
        assert!(matches!(again.outcome, Outcome::Rebuilt(_)), "{:?}", again.outcome);
        assert_eq!(again.index.score("FISH"), Some(70));
        assert_eq!(open_or_build(&list, en(), OPTIONS, &cache).unwrap().outcome, Outcome::Hit);
    }
}
