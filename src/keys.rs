//! API keys: `cw_live_` followed by 32 random alphanumeric characters (about 190 bits).
//!
//! Only a SHA-256 of each key is stored. A presented key is looked up by its hash and the
//! stored hash is compared in constant time, so neither the lookup nor the comparison tells an
//! attacker how close a guess was.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::store::{ApiKey, Scope};

/// Every key starts with this.
pub const PREFIX: &str = "cw_live_";
/// Random characters after the prefix.
pub const RANDOM_LEN: usize = 32;

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `n` characters from [A-Za-z0-9], uniformly, from the operating system's generator.
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

/// SHA-256 of a key, lower-case hex.
pub fn hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// True when `secret` has the shape of a key (prefix and 32 alphanumeric characters).
pub fn well_formed(secret: &str) -> bool {
    secret.strip_prefix(PREFIX).is_some_and(|r| r.len() == RANDOM_LEN && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Constant-time equality of two hashes.
pub fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// A new key for `account_id`: the secret (shown once) and the record to store.
pub fn new_key(account_id: &str, scopes: &[Scope]) -> (String, ApiKey) {
    let secret = format!("{PREFIX}{}", random_alphanumeric(RANDOM_LEN));
    let mut scopes = scopes.to_vec();
    scopes.sort();
    scopes.dedup();
    let record = ApiKey {
        id: format!("key_{}", random_alphanumeric(16)),
        account_id: account_id.to_owned(),
        scopes,
        hint: format!("{}…", &secret[..PREFIX.len() + 4]),
        hash: hash(&secret),
        created_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        revoked_at: None,
    };
    (secret, record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_the_contract_shape() {
        let (secret, record) = new_key("acct_x", &[Scope::Solve, Scope::Read, Scope::Read]);
        assert!(well_formed(&secret), "{secret}");
        assert_eq!(secret.len(), 40);
        assert_eq!(record.scopes, [Scope::Read, Scope::Solve]);
        assert!(same_hash(&record.hash, &hash(&secret)));
        assert!(!same_hash(&record.hash, &hash("cw_live_other")));
        assert!(!record.hint.contains(&secret[12..]));
        for bad in
            ["", "cw_live_", "cw_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "cw_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA!"]
        {
            assert!(!well_formed(bad), "{bad}");
        }
        assert_ne!(new_key("a", &Scope::ALL).0, new_key("a", &Scope::ALL).0);
    }
}
