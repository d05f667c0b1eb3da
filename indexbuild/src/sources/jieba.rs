//! The jieba Chinese dictionary shipped inside the wordfreq wheel (`word count [pos]` lines).

use ahash::AHashSet;

/// The words of a jieba dictionary file.
pub fn words(text: &str) -> AHashSet<String> {
    text.lines().filter_map(|l| l.split(' ').next()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}
