//! FiveM and RedM (Cfx.re) `getinfo` over UDP on the game port. See `docs/protocols/fivem.md`.
//!
//! # Format
//! The Cfx.re server answers the Quake 3 connectionless query on its game port:
//! ```text
//! request:  FF FF FF FF "getinfo " challenge ["\n"]
//! reply:    FF FF FF FF "infoResponse\n" { "\" key "\" value }
//! ```
//! The infostring carries `sv_maxclients`, `clients`, `challenge` (ours, echoed), `gamename`
//! (`CitizenFX`), `protocol`, `hostname` (Quake-style `^n` colours), `gametype`, `mapname`
//! and `iv` (the server's build fingerprint). The infostring and colour rules are Quake 3's, so
//! this module reuses [`quake3`]'s parser and colour stripper.
//!
//! Counts always come from `clients` and `sv_maxclients`: the player list lives on the HTTP
//! side (`/players.json`), anonymised on current servers, read best effort with
//! `players = true` ([`players`]).

pub mod exchange;
pub mod players;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::quake3::{self, strip_colors, Kind, Vars, OOB};
use super::DecodeError;
use crate::status::Status;

/// The least time between two requests to one server, resends included.
///
/// Current Cfx.re servers rate-limit `getinfo` per address (a token bucket of about 2 per
/// second with a burst of 10) and drop what is over it silently; one request every 600 ms
/// stays under the refill rate whatever the burst left.
pub const MIN_GAP: Duration = Duration::from_millis(600);

/// The longest challenge we send (the server copies it into its reply).
pub const MAX_CHALLENGE: usize = 32;

/// A decoded `infoResponse`, strings as sent (colours included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub vars: Vars,
}

/// Writes `getinfo <challenge>` (no newline: what the Cfx.re client and gamedig send; the
/// server reads the rest of the datagram as the argument either way).
pub fn encode_request(challenge: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&OOB);
    out.extend_from_slice(b"getinfo ");
    out.extend_from_slice(challenge.as_bytes());
}

/// A challenge from a number the caller drew.
pub fn challenge(nonce: u32) -> String {
    format!("{nonce:08x}")
}

/// Decodes a request (server side): the challenge argument of `getinfo`, if any. A
/// `getstatus` or anything else is refused: Cfx.re answers only `getinfo` on UDP.
pub fn decode_request(datagram: &[u8]) -> Result<Option<String>, DecodeError> {
    let req = quake3::decode_request(datagram)?;
    if req.command != quake3::Command::Info {
        return Err(DecodeError::Invalid("FiveM answers getinfo only"));
    }
    Ok(req.challenge)
}

/// Decodes an `infoResponse` that must echo `challenge`.
///
/// Another reply word (`print`, `statusResponse`), another challenge or none at all is
/// [`DecodeError::Mismatch`]: a stale or foreign reply, skipped. Cfx.re always echoes the
/// challenge, so a reply without one cannot be told from a late one and is not taken.
pub fn decode_reply(datagram: &[u8], challenge: &str) -> Result<Info, DecodeError> {
    let reply = quake3::decode_info(datagram, Some(challenge))?;
    debug_assert_eq!(reply.kind, Kind::Info);
    match reply.challenge() {
        Some(c) if c == challenge => Ok(Info { vars: reply.vars }),
        _ => Err(DecodeError::Mismatch("FiveM challenge")),
    }
}

/// Writes an `infoResponse` (server side).
pub fn encode_reply(vars: &[(String, String)], out: &mut Vec<u8>) {
    quake3::encode_info_reply(vars, out);
}

/// Maps a reply onto [`Status`]: online `clients`, max `sv_maxclients`, name `hostname`
/// without colours, map `mapname`, game `gametype`; with `detail`, `gamename`, `protocol`
/// and `iv` as extras; with `rules`, every variable but our challenge.
pub fn to_status(info: &Info, latency: Duration, detail: bool, rules: bool) -> Status {
    let v = &info.vars;
    let count = |k: &str| {
        v.int(k)
            .map_or(0, |n| u32::try_from(n.max(0)).unwrap_or(u32::MAX))
    };
    let text = |k: &str| v.get(k).map(strip_colors).filter(|s| !s.is_empty());
    let mut out = Status {
        online: count("clients"),
        max: count("sv_maxclients"),
        name: text("hostname").unwrap_or_default(),
        map: text("mapname"),
        game: text("gametype"),
        latency,
        ..Status::default()
    };
    if rules {
        out.rules = Some(
            v.pairs
                .iter()
                .map(|(k, val)| (strip_colors(k), strip_colors(val)))
                // After stripping: `chall^7enge` is the echo too, and never a rule.
                .filter(|(k, _)| !k.eq_ignore_ascii_case("challenge"))
                .collect(),
        );
    }
    if detail {
        let mut extras = Map::new();
        for key in ["gamename", "protocol", "iv"] {
            if let Some(value) = text(key) {
                extras.insert(key.into(), json!(value));
            }
        }
        if v.dropped > 0 {
            extras.insert("vars_dropped".into(), json!(v.dropped));
        }
        out.extras = extras;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An `infoResponse` in the layout a Cfx.re server (FXServer) sends: the keys in its
    /// order, a coloured hostname.
    fn sample(challenge: &str) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"\xff\xff\xff\xffinfoResponse\n");
        out.extend_from_slice(b"\\sv_maxclients\\48\\clients\\7\\challenge\\");
        out.extend_from_slice(challenge.as_bytes());
        out.extend_from_slice(
            b"\\gamename\\CitizenFX\\protocol\\4\\hostname\\^1Los ^7Santos ^5RP\
              \\gametype\\Freeroam\\mapname\\fivem-map-skater\\iv\\-1398345911",
        );
        out
    }

    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request("0badf00d", &mut out);
        assert_eq!(out, b"\xff\xff\xff\xffgetinfo 0badf00d");
        assert_eq!(decode_request(&out), Ok(Some("0badf00d".into())));
        // gamedig's fixed challenge and a trailing newline.
        assert_eq!(
            decode_request(b"\xff\xff\xff\xffgetinfo xxx\n"),
            Ok(Some("xxx".into()))
        );
        assert!(decode_request(b"\xff\xff\xff\xffgetstatus abc").is_err());
        assert_eq!(challenge(0xabc), "00000abc");
    }

    /// Every field lands where the docs say; colours go; the challenge is no rule.
    #[test]
    fn reply_fields() {
        let info = decode_reply(&sample("c0ffee00"), "c0ffee00").unwrap();
        let s = to_status(&info, Duration::from_millis(3), true, true);
        assert_eq!((s.online, s.max), (7, 48));
        assert_eq!(s.name, "Los Santos RP");
        assert_eq!(s.map.as_deref(), Some("fivem-map-skater"));
        assert_eq!(s.game.as_deref(), Some("Freeroam"));
        assert_eq!(
            (s.bots, s.version.as_deref(), s.players.as_ref()),
            (None, None, None)
        );
        assert_eq!(s.extras["gamename"], json!("CitizenFX"));
        assert_eq!(s.extras["iv"], json!("-1398345911"));
        assert_eq!(s.extras["protocol"], json!("4"));
        let rules = s.rules.unwrap();
        assert!(rules.iter().all(|(k, _)| k != "challenge"));
        assert_eq!(rules[0], ("sv_maxclients".into(), "48".into()));
    }

    /// A reply to another challenge, or with none, is someone else's: skipped.
    #[test]
    fn stale_replies_skipped() {
        assert!(matches!(
            decode_reply(&sample("11111111"), "22222222"),
            Err(DecodeError::Mismatch(_))
        ));
        let mut none = Vec::new();
        quake3::encode_info_reply(&[("clients".into(), "1".into())], &mut none);
        assert_eq!(
            decode_reply(&none, "22222222"),
            Err(DecodeError::Mismatch("FiveM challenge"))
        );
        assert!(matches!(
            decode_reply(b"\xff\xff\xff\xffprint\nnope", "x"),
            Err(DecodeError::Mismatch(_))
        ));
        assert!(matches!(
            decode_reply(b"\xff\xff\xff\xffinfoResponse\nbroken\\", "x"),
            Err(DecodeError::Invalid(_))
        ));
    }

    /// Negative or absurd counts are clamped, never wrapped.
    #[test]
    fn counts_clamped() {
        let mut d = Vec::new();
        let vars = [
            ("challenge".to_string(), "c".to_string()),
            ("clients".into(), "-4".into()),
            ("sv_maxclients".into(), "99999999999999".into()),
        ];
        encode_reply(&vars, &mut d);
        let s = to_status(
            &decode_reply(&d, "c").unwrap(),
            Duration::ZERO,
            false,
            false,
        );
        assert_eq!((s.online, s.max), (0, u32::MAX));
        assert!(s.extras.is_empty() && s.rules.is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes after the marker never panic the decoder.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut d = OOB.to_vec();
            d.extend_from_slice(b"infoResponse\n");
            d.extend_from_slice(&bytes);
            let _ = decode_reply(&d, "c");
            let _ = decode_reply(&bytes, "c");
        }

        /// What the simulator writes we read back.
        #[test]
        fn round_trip(clients in 0u32..2048, max in 0u32..2048, name in "[a-zA-Z0-9 ]{0,40}", nonce in any::<u32>()) {
            let c = challenge(nonce);
            let vars = [
                ("sv_maxclients".to_string(), max.to_string()),
                ("clients".into(), clients.to_string()),
                ("challenge".into(), c.clone()),
                ("hostname".into(), name.clone()),
            ];
            let mut d = Vec::new();
            encode_reply(&vars, &mut d);
            let s = to_status(&decode_reply(&d, &c).unwrap(), Duration::ZERO, false, false);
            prop_assert_eq!((s.online, s.max), (clients, max));
            prop_assert_eq!(s.name, name);
        }
    }
}
