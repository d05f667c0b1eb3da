//! Files of the cover service (uploaded images and their previews, later export files), kept in
//! a content-addressed folder under the data directory: `files/<first two hex>/<sha256>`. A file
//! is written to a temporary name and renamed, so a crash never leaves half a file under its
//! name; the same content is stored once, however many uploads and designs refer to it.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

/// The folder.
pub struct Files {
    dir: PathBuf,
}

impl Files {
    /// Files under `dir`.
    pub fn new(dir: PathBuf) -> Files {
        Files { dir }
    }

    fn path(&self, hash: &str) -> Option<PathBuf> {
        (hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then(|| self.dir.join(&hash[..2]).join(hash))
    }

    /// Stores bytes; their SHA-256 (lower-case hex), which names them.
    pub fn put(&self, bytes: &[u8]) -> std::io::Result<String> {
        let hash: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
        let path = self.path(&hash).ok_or_else(|| std::io::Error::other("bad hash"))?;
        if path.exists() {
            return Ok(hash);
        }
        let parent = path.parent().ok_or_else(|| std::io::Error::other("no folder"))?;
        std::fs::create_dir_all(parent)?;
        let tmp = parent.join(format!(".{hash}.{}.tmp", service_kit::keys::random_alphanumeric(8)));
        std::fs::write(&tmp, bytes)?;
        std::fs::File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        Ok(hash)
    }

    /// The bytes named by `hash`.
    pub fn get(&self, hash: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(hash)?).ok()
    }

    /// Removes what a crash can leave behind, before serving starts: temporary files of
    /// interrupted writes, and files no record refers to (`in_use` holds every hash the
    /// database names). Answers how many files went.
    pub fn sweep(&self, in_use: &std::collections::HashSet<String>) -> usize {
        let mut removed = 0;
        let Ok(folders) = std::fs::read_dir(&self.dir) else { return 0 };
        for folder in folders.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
            for file in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                let name = file.file_name().to_string_lossy().into_owned();
                let stray = name.ends_with(".tmp") || (self.path(&name).is_some() && !in_use.contains(&name));
                if stray && std::fs::remove_file(file.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }

    /// Removes a file (nothing if it is not there).
    pub fn remove(&self, hash: &str) {
        if let Some(p) = self.path(hash) {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let files = Files::new(dir.path().join("files"));
        let a = files.put(b"hello").unwrap();
        assert_eq!(a, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
        assert_eq!(files.put(b"hello").unwrap(), a, "stored once");
        assert_eq!(files.get(&a).as_deref(), Some(&b"hello"[..]));
        assert!(files.get("../../etc/passwd").is_none());
        files.remove(&a);
        assert!(files.get(&a).is_none());
    }

    #[test]
    fn the_sweep_removes_strays_and_keeps_what_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let files = Files::new(dir.path().join("files"));
        let kept = files.put(b"kept").unwrap();
        let orphan = files.put(b"orphan").unwrap();
        let folder = dir.path().join("files").join(&kept[..2]);
        std::fs::write(folder.join(format!(".{kept}.abcdefgh.tmp")), b"half").unwrap();
        std::fs::write(folder.join("notes.txt"), b"not ours").unwrap();
        let in_use = std::collections::HashSet::from([kept.clone()]);
        assert_eq!(files.sweep(&in_use), 2);
        assert_eq!(files.get(&kept).as_deref(), Some(&b"kept"[..]));
        assert!(files.get(&orphan).is_none());
        assert!(folder.join("notes.txt").exists(), "names that are not hashes are left alone");
        assert_eq!(files.sweep(&in_use), 0);
    }
}
