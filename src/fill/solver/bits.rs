//! Bitsets over the ranks of one length group, and their operations with the index's posting
//! sets.

use crate::index::Postings;

/// A bitset over the ranks of one length group.
pub(super) type Bits = Vec<u64>;

pub(super) fn popcount(bits: &[u64]) -> u32 {
    bits.iter().map(|w| w.count_ones()).sum()
}

pub(super) fn test(bits: &[u64], r: u32) -> bool {
    bits.get(r as usize / 64).is_some_and(|w| w >> (r % 64) & 1 == 1)
}

pub(super) fn clear(bits: &mut [u64], r: u32) -> bool {
    match bits.get_mut(r as usize / 64) {
        Some(w) if *w >> (r % 64) & 1 == 1 => {
            *w &= !(1 << (r % 64));
            true
        }
        _ => false,
    }
}

pub(super) fn ones(bits: &[u64]) -> impl Iterator<Item = u32> + '_ {
    bits.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros();
            w &= w - 1;
            Some(i as u32 * 64 + b)
        })
    })
}

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
                        kept[r as usize / 64] |= 1 << (r % 64);
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
