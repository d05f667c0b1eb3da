//! Random ids and API keys.
//!
//! A key is a service's prefix (`cw_live_`, `cvr_live_`) followed by 32 random alphanumeric
//! characters (about 190 bits). Only a SHA-256 of each key is stored. A presented key is looked
//! up by its hash and the stored hash is compared in constant time, so neither the lookup nor
//! the comparison tells an attacker how close a guess was.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `n` characters from \[A-Za-z0-9\], uniformly, from the operating system's generator.
pub fn random_alphanumeric(n: usize) -> String {
    let mut out = String::with_capacity(n);
    let mut buf = [0u8; 64];
    while out.len() < n {
        // If the OS generator fails there is no safe fallback for secrets: stop loudly.
        getrandom::fill(&mut buf).expect("the operating system's random generator failed");
        // Rejection sampling keeps the distribution uniform (62 * 4 = 248).
        for &b in buf.iter().filter(|&&b| b < 248) {
            if out.len() == n {
                break;
            }
            out.push(ALPHABET[(b % 62) as usize] as char);
        }
    }
    out
}

/// A record id: `prefix` followed by 16 random alphanumeric characters (`acct_…`, `key_…`).
pub fn random_id(prefix: &str) -> String {
    format!("{prefix}{}", random_alphanumeric(16))
}

/// The shape of one service's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFormat {
    /// What every key starts with, ending in `_live_` (`cw_live_`).
    pub prefix: &'static str,
}

/// Random characters after the prefix.
pub const RANDOM_LEN: usize = 32;

impl KeyFormat {
    /// A new secret key (shown to its owner once, never stored).
    pub fn generate(self) -> String {
        format!("{}{}", self.prefix, random_alphanumeric(RANDOM_LEN))
    }

    /// True when `secret` has the shape of a key (prefix and 32 alphanumeric characters).
    pub fn well_formed(self, secret: &str) -> bool {
        secret
            .strip_prefix(self.prefix)
            .is_some_and(|r| r.len() == RANDOM_LEN && r.bytes().all(|b| b.is_ascii_alphanumeric()))
    }

    /// The first characters of a key, for people to recognise it (`cw_live_AbCd…`).
    pub fn hint(self, secret: &str) -> String {
        let end = (self.prefix.len() + 4).min(secret.len());
        format!("{}…", &secret[..end])
    }
}

/// SHA-256 of a key, lower-case hex.
pub fn hash(secret: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(secret.as_bytes());
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    out
}

/// A request id: 16 alphanumeric characters from a per-thread generator seeded once from the
/// operating system. Unique enough to find a request in the logs, cheap enough for every
/// request (no system call); never use it for secrets ([`random_alphanumeric`] is for those).
pub fn request_id() -> String {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let mut seed = [0u8; 8];
            getrandom::fill(&mut seed).expect("the operating system's random generator failed");
            u64::from_le_bytes(seed) | 1
        });
    }
    STATE.with(|state| {
        let mut out = String::with_capacity(16);
        while out.len() < 16 {
            // wyrand: one multiply per 64 bits, eight characters from each.
            let s = state.get().wrapping_add(0xa076_1d64_78bd_642f);
            state.set(s);
            let t = u128::from(s) * u128::from(s ^ 0xe703_7ed1_a0b4_28db);
            let mut r = ((t >> 64) as u64) ^ (t as u64);
            for _ in 0..8 {
                out.push(ALPHABET[(r % 62) as usize] as char);
                r /= 62;
            }
        }
        out.truncate(16);
        out
    })
}

/// Constant-time equality of two strings (hashes, secrets).
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CW: KeyFormat = KeyFormat { prefix: "cw_live_" };

    #[test]
    fn keys_have_their_service_shape() {
        let secret = CW.generate();
        assert!(CW.well_formed(&secret), "{secret}");
        assert_eq!(secret.len(), 40);
        assert!(!KeyFormat { prefix: "cvr_live_" }.well_formed(&secret), "another service's prefix");
        assert!(same_secret(&hash(&secret), &hash(&secret)));
        assert!(!same_secret(&hash(&secret), &hash("cw_live_other")));
        assert!(!CW.hint(&secret).contains(&secret[12..]));
        for bad in
            ["", "cw_live_", "cw_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "cw_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA!"]
        {
            assert!(!CW.well_formed(bad), "{bad}");
        }
        assert_ne!(CW.generate(), CW.generate());
        assert!(random_id("acct_").starts_with("acct_") && random_id("x").len() == 17);
    }
}
