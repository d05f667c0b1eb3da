//! Turning word frequencies into 0-100 crossword scores.
//!
//! Each language names two Zipf values in `corpus/languages.toml` (`score_zipf`): the first maps
//! to 40 ("fine in a clean fill"), the second to 60 ("good"), linearly, clamped to 1..=100. Zipf
//! is log10 of occurrences per billion words, so one step is a tenfold change in frequency.
//! Languages with only wordfreq's small lists (every word at Zipf 3 or more) get higher anchors
//! so their scores spread over the same range.

/// Zipf penalty for words no dictionary could confirm (a tenfold lower frequency: 20 points
/// with anchors one Zipf apart).
pub const UNVERIFIED_ZIPF_PENALTY: f32 = 1.0;

/// Score of a word with frequency `zipf` under anchors `(zipf_for_40, zipf_for_60)`.
pub fn from_zipf(zipf: f32, (z40, z60): (f32, f32)) -> u8 {
    let score = 40.0 + (zipf - z40) * 20.0 / (z60 - z40);
    score.round().clamp(1.0, 100.0) as u8
}

/// Zipf value of the summed frequency of several spellings that normalize alike.
pub fn combine_zipf(a: f32, b: f32) -> f32 {
    (10f32.powf(a) + 10f32.powf(b)).log10()
}

/// Flat scores for entries that come from a dictionary rather than a frequency list.
pub mod flat {
    /// A multi-word WordNet lemma tagged in SemCor (attested in running text).
    pub const PHRASE_ATTESTED: u8 = 60;
    /// A multi-word WordNet lemma with several senses.
    pub const PHRASE_POLYSEMOUS: u8 = 55;
    /// Any other multi-word WordNet lemma.
    pub const PHRASE: u8 = 48;
    /// Taxonomic names (genus, family, order ...): valid but rarely good fill.
    pub const TAXONOMIC: u8 = 25;
    /// A dictionary word missing from the frequency list: valid, but rare.
    pub const DICTIONARY_ONLY: u8 = 30;
    /// Plural of a phrase: a little weaker than the singular.
    pub const PLURAL_PENALTY: u8 = 5;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_land_on_40_and_60() {
        assert_eq!(from_zipf(2.6, (2.6, 3.6)), 40);
        assert_eq!(from_zipf(3.6, (2.6, 3.6)), 60);
        assert_eq!(from_zipf(9.0, (2.6, 3.6)), 100);
        assert_eq!(from_zipf(0.0, (2.6, 3.6)), 1);
        assert!((combine_zipf(3.0, 3.0) - 3.30103).abs() < 1e-4);
    }
}
