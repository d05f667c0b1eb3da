//! Bitsets over the ranks of one length group, and their operations with the index's posting
//! sets.

use crossword_index::Postings;

/// A bitset over the ranks of one length group.
pub(super) type Bits = Vec<u64>;

pub(super) fn popcount(bits: &[u64]) -> u32 {
    bits.iter().map(|w| w.count_ones()).sum()
}

pub(super) use crossword_index::bitset::{clear, ones, set, test};

/// `bits &= set` (or `bits &= !set` when `negate`); returns whether anything changed.
pub(super) fn and_postings(bits: &mut [u64], set: &Postings<'_>, negate: bool) -> bool {
    let mut changed = false;
    match set {
        Postings::Bitset(words) => {
            for (b, &w) in bits.iter_mut().zip(words.iter()) {
                let new = if negate { *b & !w } else { *b & w };
                changed |= new != *b;
                *b = new;
            }
        }
        Postings::List(ranks) => {
            if negate {
                for &r in ranks.iter() {
                    changed |= clear(bits, r);
                }
            } else {
                let mut kept = vec![0u64; bits.len()];
                for &r in ranks.iter() {
                    if test(bits, r) {
                        super::bits::set(&mut kept, r);
                    }
                }
                changed = kept != bits;
                bits.copy_from_slice(&kept);
            }
        }
    }
    changed
}

pub(super) fn intersects(bits: &[u64], set: &Postings<'_>) -> bool {
    match set {
        Postings::Bitset(words) => bits.iter().zip(words.iter()).any(|(a, b)| a & b != 0),
        Postings::List(ranks) => ranks.iter().any(|&r| test(bits, r)),
    }
}

/// How many ranks are in both `bits` and `set`.
pub(super) fn count_common(bits: &[u64], set: &Postings<'_>) -> u32 {
    match set {
        Postings::Bitset(words) => bits.iter().zip(words.iter()).map(|(a, b)| (a & b).count_ones()).sum(),
        Postings::List(ranks) => ranks.iter().filter(|&&r| test(bits, r)).count() as u32,
    }
}
