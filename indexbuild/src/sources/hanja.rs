//! Korean words from Debian `libhangul-data`'s hanja table (BSD-3): `hangul:hanja:description`.

use std::path::Path;

use anyhow::Result;

/// Distinct Hangul words of two or more syllables in the table.
pub fn words(unpacked_root: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(unpacked_root.join("usr/share/libhangul/hanja/hanja.txt"))?;
    let mut out: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(':').next())
        .filter(|w| w.chars().count() >= 2 && w.chars().all(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)))
        .map(str::to_owned)
        .collect();
    out.sort_unstable();
    out.dedup();
    Ok(out)
}
