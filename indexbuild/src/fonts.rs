//! The fonts of printed puzzles (`crossword_puzzle::fonts`): each fetched with apt-get by its
//! Debian package name into the download cache, then copied into the index folder's `fonts/`,
//! where the server looks for them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use crossword_puzzle::fonts::{BOLD, REGULAR};

use crate::fetch::Cache;
use crate::recipes::Recipes;

/// Finds a file called `name` under `dir`.
fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// Fetches every font package and copies its font into `out`; returns the installed paths.
pub fn install(cache: &Cache, out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut installed = Vec::new();
    for font in REGULAR.iter().chain([&BOLD]) {
        let dir = cache.get(&Recipes::apt_package(font.package))?;
        let source = find(&dir, font.file)
            .with_context(|| format!("{} has no {} (package layout changed?)", font.package, font.file))?;
        let target = out.join(font.file);
        std::fs::copy(&source, &target).with_context(|| format!("copying {}", source.display()))?;
        installed.push(target);
    }
    Ok(installed)
}
