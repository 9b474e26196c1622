//! HTTP basic authentication against the web config's `basic_auth_users` (bcrypt hashes).
//!
//! bcrypt is slow on purpose (cost 10 is tens of milliseconds of CPU), and Prometheus sends
//! the same credentials with every scrape. So a verified password is remembered: per user,
//! SHA-256 of a per-process random salt and the password. A later request with that user is
//! checked against the remembered digest in constant time and skips bcrypt; anything else
//! pays bcrypt again. The cache holds at most one entry per configured user (only successes
//! go in), and it is thrown away with the [`Users`] on every reload, so a changed hash is
//! never answered from it.
//!
//! bcrypt runs on the blocking pool, at most [`BCRYPT_AT_ONCE`] at a time, so a flood of wrong
//! passwords queues up there instead of taking the runtime's threads or every core; cached
//! scrapes do not wait in that queue. An unknown user name is checked against a dummy hash so
//! it costs what a wrong password costs and the timing does not tell which names exist.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use base64::Engine;
use hyper::header::{HeaderMap, AUTHORIZATION};
use ring::digest::{digest, SHA256};
use ring::rand::{SecureRandom, SystemRandom};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

use crate::sync::lock;

/// bcrypt verifications running at once (the machine may have two cores).
pub const BCRYPT_AT_ONCE: usize = 1;

/// An `Authorization` header longer than this is refused unread: a user name and a password
/// fit easily, and bcrypt only looks at 72 bytes anyway.
const MAX_HEADER_BYTES: usize = 1024;

/// A cost-10 hash of a random string nobody knows, for unknown user names.
const DUMMY_HASH: &str = "$2y$10$UwB3nGkJcq3dQ7h3m1k8Eu3Tt8YwO9YQzq1bqGkV7n0lq2v5xJZ7e";

/// The users of one loaded web config and the credentials already verified against them.
pub struct Users {
    hashes: BTreeMap<String, String>,
    salt: [u8; 16],
    verified: Mutex<HashMap<String, [u8; 32]>>,
    bcrypt: Arc<Semaphore>,
}

impl std::fmt::Debug for Users {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Users")
            .field("users", &self.hashes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Users {
    /// `hashes` maps user names to bcrypt hashes (validated by the config parser).
    pub fn new(hashes: BTreeMap<String, String>) -> Result<Users, String> {
        let mut salt = [0u8; 16];
        SystemRandom::new()
            .fill(&mut salt)
            .map_err(|_| "no randomness for the credential cache".to_string())?;
        Ok(Users {
            hashes,
            salt,
            verified: Mutex::default(),
            bcrypt: Arc::new(Semaphore::new(BCRYPT_AT_ONCE)),
        })
    }

    /// How many users are configured.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    fn fingerprint(&self, password: &[u8]) -> [u8; 32] {
        let mut input = Vec::with_capacity(self.salt.len() + password.len());
        input.extend_from_slice(&self.salt);
        input.extend_from_slice(password);
        let mut out = [0u8; 32];
        out.copy_from_slice(digest(&SHA256, &input).as_ref());
        out
    }

    /// True if the request carries the credentials of a configured user.
    pub async fn check(&self, headers: &HeaderMap) -> bool {
        let Some((user, password)) = credentials(headers) else {
            return false;
        };
        let fingerprint = self.fingerprint(&password);
        let known = self.hashes.get(&user);
        if known.is_some() {
            if let Some(f) = lock(&self.verified).get(&user) {
                if bool::from(f.ct_eq(&fingerprint)) {
                    return true;
                }
            }
        }
        let hash = known.cloned().unwrap_or_else(|| DUMMY_HASH.to_string());
        let Ok(_permit) = self.bcrypt.acquire().await else {
            return false;
        };
        let ok = tokio::task::spawn_blocking(move || bcrypt::verify(&password, &hash))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or(false)
            && known.is_some();
        if ok {
            lock(&self.verified).insert(user, fingerprint);
        }
        ok
    }
}

/// User name and password from `Authorization: Basic base64(user:password)`. The scheme name
/// is case-insensitive (RFC 9110 §11.1); the user name must be UTF-8, the password may be any
/// bytes.
fn credentials(headers: &HeaderMap) -> Option<(String, Vec<u8>)> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let value = values.next()?;
    if values.next().is_some() || value.len() > MAX_HEADER_BYTES {
        return None;
    }
    let (scheme, token) = value.to_str().ok()?.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(token.trim())
        .ok()?;
    let colon = raw.iter().position(|&b| b == b':')?;
    let user = String::from_utf8(raw[..colon].to_vec()).ok()?;
    Some((user, raw[colon + 1..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn basic(user: &str, password: &str) -> HeaderMap {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        let mut h = HeaderMap::new();
        h.insert(
            AUTHORIZATION,
            HeaderValue::from_str(&format!("Basic {token}")).unwrap(),
        );
        h
    }

    fn users() -> Users {
        let hash = bcrypt::hash("s3cret:x", 4).unwrap();
        Users::new(BTreeMap::from([("prom".to_string(), hash)])).unwrap()
    }

    /// The header is parsed strictly: scheme, base64, the first colon splits.
    #[test]
    fn header_parsing() {
        assert_eq!(
            credentials(&basic("prom", "a:b")),
            Some(("prom".into(), b"a:b".to_vec()))
        );
        let mut h = HeaderMap::new();
        h.insert(AUTHORIZATION, HeaderValue::from_static("basic cHJvbTp4"));
        assert_eq!(credentials(&h), Some(("prom".into(), b"x".to_vec())));
        h.insert(AUTHORIZATION, HeaderValue::from_static("Bearer cHJvbTp4"));
        assert_eq!(credentials(&h), None);
        h.insert(AUTHORIZATION, HeaderValue::from_static("Basic !!!"));
        assert_eq!(credentials(&h), None);
        // No colon.
        h.insert(AUTHORIZATION, HeaderValue::from_static("Basic cHJvbQ=="));
        assert_eq!(credentials(&h), None);
        h.append(AUTHORIZATION, HeaderValue::from_static("Basic cHJvbTp4"));
        assert_eq!(credentials(&h), None, "two Authorization headers");
        assert_eq!(credentials(&HeaderMap::new()), None);
    }

    proptest::proptest! {
        /// Any Authorization bytes: no panic; a decoded pair always comes from a Basic token.
        #[test]
        fn arbitrary_authorization(v in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            if let Ok(value) = HeaderValue::from_bytes(&v) {
                let mut h = HeaderMap::new();
                h.insert(AUTHORIZATION, value);
                if credentials(&h).is_some() {
                    proptest::prop_assert!(v.len() > 6 && v[..6].eq_ignore_ascii_case(b"basic "));
                }
            }
        }
    }

    /// Right, wrong, unknown and missing credentials; the right one is then cached and a
    /// wrong one is still refused with a cached entry present.
    #[tokio::test]
    async fn verify_and_cache() {
        let u = users();
        assert!(!u.check(&HeaderMap::new()).await);
        assert!(!u.check(&basic("prom", "wrong")).await);
        assert!(!u.check(&basic("nobody", "s3cret:x")).await);
        assert!(lock(&u.verified).is_empty());
        assert!(u.check(&basic("prom", "s3cret:x")).await);
        assert_eq!(lock(&u.verified).len(), 1);
        assert!(u.check(&basic("prom", "s3cret:x")).await);
        assert!(!u.check(&basic("prom", "s3cret:y")).await);
        assert!(!u.check(&basic("prom", "")).await);
    }

    /// The dummy hash is a well-formed cost-10 hash, so unknown users pay the full price.
    #[test]
    fn dummy_hash_is_valid() {
        let parts: bcrypt::HashParts = DUMMY_HASH.parse().unwrap();
        assert_eq!(parts.get_cost(), 10);
        assert!(!bcrypt::verify("", DUMMY_HASH).unwrap());
    }
}
