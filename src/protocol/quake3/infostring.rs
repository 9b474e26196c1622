//! The infostring: `\key\value` pairs, the server variables of both replies.

use crate::protocol::DecodeError;

/// Server variables kept per reply; later ones are counted, not stored.
///
/// ioquake3 caps an infostring at 1024 bytes (`MAX_INFO_STRING`), which holds at most 256
/// one-character pairs; DarkPlaces' is shorter. A real server never reaches this.
pub const MAX_VARS: usize = 256;

/// The variables of one reply, in the server's order, as sent (colour codes included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    pub pairs: Vec<(String, String)>,
    /// Pairs beyond [`MAX_VARS`], counted only.
    pub dropped: usize,
}

impl Vars {
    /// The value of `key`, compared without case as the engines do (`Info_ValueForKey`);
    /// the first one wins when a server repeats a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        crate::protocol::keyvalue::get(&self.pairs, key)
    }

    /// The first of `keys` that is present.
    pub fn first(&self, keys: &[&str]) -> Option<&str> {
        crate::protocol::keyvalue::first(&self.pairs, keys)
    }

    /// A number the way C's `atoi` reads it (leading blanks, sign, digits, then anything),
    /// which is how the engines read their own variables; `None` without any digit.
    pub fn int(&self, key: &str) -> Option<i64> {
        atoi(self.get(key)?)
    }
}

/// Leading integer of `s`, saturating instead of overflowing.
pub(super) fn atoi(s: &str) -> Option<i64> {
    let s = s.trim_start();
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = digits.as_bytes();
    let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if len == 0 {
        return None;
    }
    let magnitude = digits[..len].iter().fold(0i64, |acc, &d| {
        acc.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    Some(if negative { -magnitude } else { magnitude })
}

/// Parses an infostring. Empty is fine; otherwise it must start with `\`, and every key needs
/// its value (a trailing lone `\` is tolerated). Keys and values are lossy UTF-8.
pub fn decode_vars(text: &[u8]) -> Result<Vars, DecodeError> {
    let mut vars = Vars::default();
    if text.is_empty() {
        return Ok(vars);
    }
    let body = text
        .strip_prefix(b"\\")
        .ok_or(DecodeError::Invalid("infostring: no leading backslash"))?;
    let mut fields = body.split(|&b| b == b'\\');
    while let Some(key) = fields.next() {
        let Some(value) = fields.next() else {
            if key.is_empty() {
                break;
            }
            return Err(DecodeError::Invalid("infostring: key without value"));
        };
        if vars.pairs.len() < MAX_VARS {
            vars.pairs.push((lossy(key), lossy(value)));
        } else {
            vars.dropped += 1;
        }
    }
    Ok(vars)
}

/// Writes an infostring (server side). Keys and values must not hold `\` or a newline; the
/// simulator's callers make sure of that, or mean to break the reply.
pub fn encode_vars(pairs: &[(String, String)], out: &mut Vec<u8>) {
    for (k, v) in pairs {
        out.push(b'\\');
        out.extend_from_slice(k.as_bytes());
        out.push(b'\\');
        out.extend_from_slice(v.as_bytes());
    }
}

pub(super) fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Pairs come back in order; lookups ignore case; the first of a repeated key wins.
    #[test]
    fn pairs_in_order() {
        let vars = decode_vars(b"\\sv_hostname\\^1Red\\mapname\\q3dm17\\MapName\\other").unwrap();
        assert_eq!(
            vars.pairs,
            pairs(&[
                ("sv_hostname", "^1Red"),
                ("mapname", "q3dm17"),
                ("MapName", "other")
            ])
        );
        assert_eq!(vars.get("MAPNAME"), Some("q3dm17"));
        assert_eq!(vars.first(&["hostname", "sv_hostname"]), Some("^1Red"));
        assert_eq!(vars.get("nope"), None);
        assert_eq!(vars.dropped, 0);
    }

    /// Empty values are values; a trailing lone backslash is tolerated; a key without a
    /// value or a missing leading backslash is an error.
    #[test]
    fn edges() {
        assert_eq!(decode_vars(b"").unwrap(), Vars::default());
        assert_eq!(
            decode_vars(b"\\a\\\\b\\2").unwrap().pairs,
            pairs(&[("a", ""), ("b", "2")])
        );
        assert_eq!(
            decode_vars(b"\\a\\1\\").unwrap().pairs,
            pairs(&[("a", "1")])
        );
        assert_eq!(
            decode_vars(b"\\a\\1\\b"),
            Err(DecodeError::Invalid("infostring: key without value"))
        );
        assert_eq!(
            decode_vars(b"a\\1"),
            Err(DecodeError::Invalid("infostring: no leading backslash"))
        );
    }

    /// Past [`MAX_VARS`] pairs are counted, not stored.
    #[test]
    fn capped() {
        let mut text = Vec::new();
        for i in 0..MAX_VARS + 44 {
            text.extend_from_slice(format!("\\k{i}\\v").as_bytes());
        }
        let vars = decode_vars(&text).unwrap();
        assert_eq!((vars.pairs.len(), vars.dropped), (MAX_VARS, 44));
        assert_eq!(vars.pairs[MAX_VARS - 1].0, format!("k{}", MAX_VARS - 1));
    }

    /// Numbers are read as the engines read them.
    #[test]
    fn atoi_like_c() {
        assert_eq!(atoi("12"), Some(12));
        assert_eq!(atoi(" -3x"), Some(-3));
        assert_eq!(atoi("+7"), Some(7));
        assert_eq!(atoi("x"), None);
        assert_eq!(atoi(""), None);
        assert_eq!(atoi("-"), None);
        assert_eq!(atoi("99999999999999999999999"), Some(i64::MAX));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes: no panic, never more than MAX_VARS stored.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Ok(v) = decode_vars(&bytes) {
                prop_assert!(v.pairs.len() <= MAX_VARS);
                prop_assert!(v.pairs.len() * 2 <= bytes.len());
            }
        }

        /// decode(encode(x)) == x for keys and values without backslashes.
        #[test]
        fn round_trip(p in proptest::collection::vec(("[a-zA-Z_0-9]{1,12}", "[ -\\[\\]-~]{0,20}"), 0..30)) {
            let mut out = Vec::new();
            encode_vars(&p, &mut out);
            prop_assert_eq!(decode_vars(&out).unwrap().pairs, p);
        }
    }
}
