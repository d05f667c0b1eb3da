//! Splitting Devanagari text into aksharas (one grid cell each).
//!
//! An akshara is an extended grapheme cluster as UAX #29 defines it, including rule GB9c
//! (Unicode 15.1): a consonant, virama, consonant sequence stays one cluster, so क्ष is one
//! cell. `unicode-segmentation` gives the clusters; we then join any cluster that ends in a
//! virama with a following cluster that starts with a consonant, which is GB9c for
//! Devanagari whatever Unicode version that crate implements.

use unicode_segmentation::UnicodeSegmentation;

const VIRAMA: char = '\u{094D}';

/// Devanagari consonants (GB9c's Indic_Conjunct_Break=Consonant for this script).
fn is_consonant(c: char) -> bool {
    matches!(c, '\u{0915}'..='\u{0939}' | '\u{0958}'..='\u{095F}' | '\u{0978}'..='\u{097F}')
}

/// Splits normalized Devanagari text into aksharas.
pub(super) fn aksharas(text: &str) -> Vec<&str> {
    let mut cells: Vec<&str> = Vec::new();
    let mut start_of_last = 0;
    for (offset, cluster) in text.grapheme_indices(true) {
        if let Some(prev) = cells.last_mut() {
            if prev.ends_with(VIRAMA) && cluster.chars().next().is_some_and(is_consonant) {
                *prev = &text[start_of_last..offset + cluster.len()];
                continue;
            }
        }
        start_of_last = offset;
        cells.push(cluster);
    }
    cells
}
