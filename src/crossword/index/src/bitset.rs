//! Bit operations on `u64` words, bit `i` being bit `i % 64` of word `i / 64`: the layout of the
//! index's bitset posting sets, and of the fill solver's domains and cell masks.

/// True when bit `i` is set (false past the end).
#[inline]
pub fn test(words: &[u64], i: u32) -> bool {
    words.get(i as usize / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// Sets bit `i` (which must lie inside `words`).
#[inline]
pub fn set(words: &mut [u64], i: u32) {
    words[i as usize / 64] |= 1 << (i % 64);
}

/// Clears bit `i`; true when it was set.
#[inline]
pub fn clear(words: &mut [u64], i: u32) -> bool {
    let was = test(words, i);
    if was {
        words[i as usize / 64] &= !(1 << (i % 64));
    }
    was
}

/// The set bits, ascending.
pub fn ones(words: &[u64]) -> impl Iterator<Item = u32> + '_ {
    words.iter().enumerate().flat_map(|(i, &w)| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_test_clear_and_iterate() {
        let mut words = vec![0u64; 3];
        for i in [0, 63, 64, 130] {
            set(&mut words, i);
        }
        assert!(test(&words, 63) && test(&words, 64) && !test(&words, 65));
        assert!(!test(&words, 500), "past the end reads as clear");
        assert_eq!(ones(&words).collect::<Vec<_>>(), [0, 63, 64, 130]);
        assert!(clear(&mut words, 64));
        assert!(!clear(&mut words, 64), "clearing twice reports nothing");
        assert_eq!(ones(&words).collect::<Vec<_>>(), [0, 63, 130]);
    }
}
