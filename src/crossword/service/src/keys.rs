//! The crossword service's API keys: `cw_live_` followed by 32 random alphanumeric characters
//! (the kit's [`KeyFormat`]), stored as SHA-256 hashes only.

use service_kit::keys::{hash, random_id, KeyFormat};

use crate::store::{ApiKey, Scope};

/// The shape of every crossword key.
pub const FORMAT: KeyFormat = KeyFormat { prefix: "cw_live_" };

/// A new key for `account_id`: the secret (shown once) and the record to store.
pub fn new_key(account_id: &str, scopes: &[Scope]) -> (String, ApiKey) {
    let secret = FORMAT.generate();
    let mut scopes = scopes.to_vec();
    scopes.sort();
    scopes.dedup();
    let record = ApiKey {
        id: random_id("key_"),
        account_id: account_id.to_owned(),
        scopes,
        hint: FORMAT.hint(&secret),
        hash: hash(&secret),
        created_at: service_kit::period::unix_now(),
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
        assert!(FORMAT.well_formed(&secret), "{secret}");
        assert_eq!(secret.len(), 40);
        assert!(secret.starts_with("cw_live_"));
        assert_eq!(record.scopes, [Scope::Read, Scope::Solve]);
        assert_eq!(record.hash, hash(&secret));
        assert!(record.id.starts_with("key_"));
        assert!(!record.hint.contains(&secret[12..]));
    }
}
