//! A2S_RULES replies (`E`).
//!
//! # Format
//! ```text
//! E  count u16, then per rule: name (string), value (string)
//! ```

use super::{expect, kind, put_cstr, DecodeError, Reader, SINGLE_HEADER};

/// Two NULs: the smallest rule on the wire.
const MIN_RULE_BYTES: usize = 2;

pub fn decode_rules(msg: &[u8]) -> Result<Vec<(String, String)>, DecodeError> {
    let mut r = Reader::new(msg);
    expect(&mut r, kind::RULES, "rules reply type")?;
    let count = usize::from(r.u16_le()?);
    let mut rules = Vec::with_capacity(count.min(r.remaining() / MIN_RULE_BYTES));
    for _ in 0..count {
        let name = r.cstring()?;
        let value = r.cstring()?;
        rules.push((name, value));
    }
    Ok(rules)
}

/// Encodes at most 65535 rules (the count is a u16).
pub fn encode_rules(rules: &[(String, String)], out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::RULES);
    let rules = &rules[..rules.len().min(usize::from(u16::MAX))];
    out.extend_from_slice(&(rules.len() as u16).to_le_bytes());
    for (name, value) in rules {
        put_cstr(out, name);
        put_cstr(out, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A hand-built rules reply decodes in the server's order.
    #[test]
    fn two_rules() {
        let mut b = vec![0xFF, 0xFF, 0xFF, 0xFF, b'E', 2, 0];
        b.extend_from_slice(b"mp_friendlyfire\x000\0sv_gravity\0800\0");
        assert_eq!(
            decode_rules(&b),
            Ok(vec![
                ("mp_friendlyfire".into(), "0".into()),
                ("sv_gravity".into(), "800".into())
            ])
        );
    }

    /// A count of 65535 over three bytes is an error, not a large allocation.
    #[test]
    fn count_beyond_datagram() {
        let b = [0xFF, 0xFF, 0xFF, 0xFF, b'E', 0xFF, 0xFF, b'a', 0, 0];
        assert!(matches!(
            decode_rules(&b),
            Err(DecodeError::Unterminated { .. })
        ));
    }

    proptest! {
        /// Rule lists round-trip.
        #[test]
        fn round_trip(rules in proptest::collection::vec(("[^\0]{0,16}", "[^\0]{0,16}"), 0..40)) {
            let mut b = Vec::new();
            encode_rules(&rules, &mut b);
            prop_assert_eq!(decode_rules(&b), Ok(rules));
        }
    }
}
