//! Proof tokens for generated clues.
//!
//! A token is `v1.` followed by the unpadded base64url HMAC-SHA256, under the server's secret,
//! of the language code, the normalized answer and the exact clue text (each followed by a
//! zero byte). Anyone holding the secret can verify a token without a database: the puzzles
//! API checks that an `ai` clue sent with a puzzle really came from this service, for that
//! answer, with that text. A token from another server (another secret) or for altered text
//! fails.

use std::io;
use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

const PREFIX: &str = "v1.";
/// Length of a secret in bytes.
pub const SECRET_LEN: usize = 32;

/// Signs and verifies clue tokens.
#[derive(Clone)]
pub struct ClueSigner {
    secret: [u8; SECRET_LEN],
}

impl std::fmt::Debug for ClueSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClueSigner(..)")
    }
}

impl ClueSigner {
    /// A signer with the given secret.
    pub fn new(secret: [u8; SECRET_LEN]) -> ClueSigner {
        ClueSigner { secret }
    }

    /// Reads the secret from `path`, creating it (32 random bytes, readable by the owner only)
    /// when the file does not exist.
    pub fn load_or_create(path: &Path) -> io::Result<ClueSigner> {
        match std::fs::read(path) {
            Ok(bytes) => {
                let secret: [u8; SECRET_LEN] = bytes.as_slice().try_into().map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{} must hold {SECRET_LEN} bytes", path.display()),
                    )
                })?;
                Ok(ClueSigner::new(secret))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let mut secret = [0u8; SECRET_LEN];
                getrandom::fill(&mut secret).map_err(|e| io::Error::other(e.to_string()))?;
                let tmp = path.with_extension("tmp");
                write_private(&tmp, &secret)?;
                std::fs::rename(&tmp, path)?;
                Ok(ClueSigner::new(secret))
            }
            Err(e) => Err(e),
        }
    }

    fn mac(&self, language: &str, answer: &str, text: &str) -> Hmac<Sha256> {
        // HMAC accepts keys of any length.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret).expect("HMAC takes any key length");
        for part in [language, answer, text] {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        mac
    }

    /// The token for `text` as a clue of `answer` (normalized) in `language` (its code).
    pub fn sign(&self, language: &str, answer: &str, text: &str) -> String {
        let tag = self.mac(language, answer, text).finalize().into_bytes();
        format!("{PREFIX}{}", base64url(&tag))
    }

    /// True when `token` was made by [`ClueSigner::sign`] with this secret for exactly these
    /// values. Compares in constant time.
    pub fn verify(&self, language: &str, answer: &str, text: &str, token: &str) -> bool {
        let Some(tag) = token.strip_prefix(PREFIX).and_then(base64url_decode) else {
            return false;
        };
        self.mac(language, answer, text).verify_slice(&tag).is_ok()
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url.
fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// The inverse of [`base64url`]; `None` on any character outside the alphabet or a bad length.
fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 || text.len() > 128 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    // Reject non-canonical encodings (stray low bits).
    (base64url(&out) == text).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64url_decode(&base64url(&bytes)).as_deref(), Some(bytes.as_slice()));
        }
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
        assert!(base64url_decode("a").is_none());
        assert!(base64url_decode("ab=c").is_none());
    }

    #[test]
    fn tokens_verify_only_the_exact_clue() {
        let signer = ClueSigner::new([7; SECRET_LEN]);
        let token = signer.sign("en", "ICE", "Frozen water");
        assert!(token.starts_with("v1."));
        assert!(signer.verify("en", "ICE", "Frozen water", &token));
        assert!(!signer.verify("en", "ICE", "Frozen water!", &token), "tampered text");
        assert!(!signer.verify("en", "ICED", "Frozen water", &token), "other answer");
        assert!(!signer.verify("es", "ICE", "Frozen water", &token), "other language");
        assert!(!ClueSigner::new([8; SECRET_LEN]).verify("en", "ICE", "Frozen water", &token), "other secret");
        let mut flipped = token.clone().into_bytes();
        let last = flipped.len() - 2;
        flipped[last] = if flipped[last] == b'A' { b'B' } else { b'A' };
        assert!(!signer.verify("en", "ICE", "Frozen water", &String::from_utf8(flipped).unwrap()));
        assert!(!signer.verify("en", "ICE", "Frozen water", "v1.???"));
        assert!(!signer.verify("en", "ICE", "Frozen water", ""));
    }

    #[test]
    fn secret_file_is_created_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clue-token.secret");
        let a = ClueSigner::load_or_create(&path).unwrap();
        let b = ClueSigner::load_or_create(&path).unwrap();
        assert_eq!(a.sign("en", "A", "b"), b.sign("en", "A", "b"));
        assert_eq!(std::fs::read(&path).unwrap().len(), SECRET_LEN);
        std::fs::write(&path, b"short").unwrap();
        assert!(ClueSigner::load_or_create(&path).is_err());
    }
}
