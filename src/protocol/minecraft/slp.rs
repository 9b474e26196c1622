//! Server list ping 1.7+: handshake, status and ping packets, VarInt framed.
//!
//! # Exchange
//! ```text
//! C->S  Handshake (0x00): VarInt protocol | String host | u16 BE port | VarInt next state = 1
//! C->S  Status request (0x00), no fields              (sent in the same write as the handshake)
//! S->C  Status response (0x00): String JSON
//! C->S  Ping (0x01): i64 BE
//! S->C  Pong (0x01): the same i64                      (non-vanilla servers often never answer)
//! ```

use serde_json::Value;

use super::status_json::Top;
use super::varint::{
    decode_frame, encode_frame, encode_frame_header, encode_string, encode_varint, read_string,
    read_string_bytes, read_varint, varint_len, Frame,
};
use crate::protocol::{DecodeError, Reader};

/// The protocol version we announce. -1 is the documented "I am only asking which version you
/// are" value: servers answer the status query whatever the number, and proxies that map
/// versions (ViaVersion, Velocity) then report their own preferred version instead of
/// pretending to match ours.
pub const PROTOCOL_VERSION_PING: i32 = -1;

/// The concrete protocol version announced by the one retry after a server closed on `-1`
/// without a byte (some implementations accept only numbers they know), before the legacy
/// pings, which such servers do not speak either.
///
/// 47 is Minecraft 1.8-1.8.9. It is the number the most software accepts: every proxy
/// (BungeeCord, Waterfall, Velocity all support 1.7.2 and later), ViaVersion/ViaBackwards
/// servers (which keep 1.8 in range for its PvP players), and the many 1.8 servers still
/// running. The status exchange has had the same shape since 1.7 (protocol 4), so announcing
/// 47 changes nothing we parse; a server that translates the reply down to 1.8 only drops
/// hex colours from the MOTD, which we strip anyway.
pub const PROTOCOL_VERSION_RETRY: i32 = 47;

/// Handshake `next state` asking for the status stage.
pub const NEXT_STATE_STATUS: i32 = 1;

pub const PACKET_STATUS: i32 = 0x00;
pub const PACKET_PING: i32 = 0x01;

pub use super::status_json::{ServerStatus, MAX_SAMPLE};

/// The handshake as the server sees it (the simulator decodes it; tests compare it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handshake {
    pub protocol_version: i32,
    /// The hostname the user typed: proxies such as Velocity route by it.
    pub address: String,
    pub port: u16,
    pub next_state: i32,
}

/// Appends the handshake frame.
pub fn encode_handshake(h: &Handshake, out: &mut Vec<u8>) {
    encode_handshake_of(h.protocol_version, &h.address, h.port, h.next_state, out);
}

/// [`encode_handshake`] from its fields, in place: no copy of the host, no body buffer
/// (every poll writes one).
fn encode_handshake_of(protocol_version: i32, host: &str, port: u16, next: i32, out: &mut Vec<u8>) {
    let host_len = i32::try_from(host.len()).unwrap_or(i32::MAX);
    let body_len =
        varint_len(protocol_version) + varint_len(host_len) + host.len() + 2 + varint_len(next);
    encode_frame_header(0x00, body_len, out);
    encode_varint(protocol_version, out);
    encode_string(host, out);
    out.extend_from_slice(&port.to_be_bytes());
    encode_varint(next, out);
}

/// Decodes a handshake frame (server side).
pub fn decode_handshake(frame: &Frame) -> Result<Handshake, DecodeError> {
    if frame.id != 0x00 {
        return Err(DecodeError::UnexpectedType {
            what: "handshake packet id",
            found: frame.id as u32,
        });
    }
    let mut r = Reader::new(&frame.body);
    let protocol_version = read_varint(&mut r)?;
    let address = read_string(&mut r)?;
    let port = r.u16_be()?;
    let next_state = read_varint(&mut r)?;
    Ok(Handshake {
        protocol_version,
        address,
        port,
        next_state,
    })
}

/// Appends the status request frame (id 0x00, no fields).
pub fn encode_status_request(out: &mut Vec<u8>) {
    encode_frame(PACKET_STATUS, &[], out);
}

/// Appends handshake + status request: the bytes of the first (and only) write of a query,
/// announcing [`PROTOCOL_VERSION_PING`].
pub fn encode_status_query(host: &str, port: u16, out: &mut Vec<u8>) {
    encode_status_query_as(PROTOCOL_VERSION_PING, host, port, out);
}

/// [`encode_status_query`] announcing `protocol_version` (the retry uses
/// [`PROTOCOL_VERSION_RETRY`]).
pub fn encode_status_query_as(protocol_version: i32, host: &str, port: u16, out: &mut Vec<u8>) {
    encode_handshake_of(protocol_version, host, port, NEXT_STATE_STATUS, out);
    encode_status_request(out);
}

/// Appends a ping (or, server side, a pong) frame carrying `payload`.
pub fn encode_ping(payload: i64, out: &mut Vec<u8>) {
    encode_frame(PACKET_PING, &payload.to_be_bytes(), out);
}

/// Appends a status response frame carrying `json` (server side).
pub fn encode_status_response(json: &str, out: &mut Vec<u8>) {
    let mut body = Vec::with_capacity(json.len() + 5);
    encode_string(json, &mut body);
    encode_frame(PACKET_STATUS, &body, out);
}

/// Decodes the status response frame and parses its JSON, keeping the document
/// ([`ServerStatus::raw`]).
pub fn decode_status_response(frame: &Frame) -> Result<ServerStatus, DecodeError> {
    decode_status_response_as(frame, true)
}

/// [`decode_status_response`], keeping the whole document in [`ServerStatus::raw`] only when
/// `raw` is set (otherwise `raw` is `Null`, and the parse builds no document: see
/// [`super::status_json`]).
pub fn decode_status_response_as(frame: &Frame, raw: bool) -> Result<ServerStatus, DecodeError> {
    if frame.id != PACKET_STATUS {
        return Err(DecodeError::UnexpectedType {
            what: "status response packet id",
            found: frame.id as u32,
        });
    }
    let mut r = Reader::new(&frame.body);
    parse_status_json(read_string_bytes(&mut r)?, raw)
}

/// Decodes a ping frame's payload (server side, and for pongs).
pub fn decode_ping(frame: &Frame) -> Result<i64, DecodeError> {
    if frame.id != PACKET_PING {
        return Err(DecodeError::UnexpectedType {
            what: "ping packet id",
            found: frame.id as u32,
        });
    }
    Reader::new(&frame.body).i64_be()
}

/// Decodes the first reply frame to a handshake, telling a pre-1.7 server's `FF` kick apart.
///
/// A kick is `FF`, then a u16 character count (below 256 in practice, so `00`). As a VarInt
/// `FF 00` would be 127 in a non-minimal two bytes, which no server writes, while a lone `FF`
/// may well start a real frame of 255 bytes or more.
pub fn decode_reply_frame(
    buf: &[u8],
    max_len: usize,
) -> Result<Option<(Frame, usize)>, DecodeError> {
    if buf.starts_with(&[0xff, 0x00]) {
        return Err(DecodeError::UnexpectedType {
            what: "legacy kick in reply to a 1.7 handshake",
            found: 0xff,
        });
    }
    decode_frame(buf, max_len)
}

/// Checks that a pong echoes the ping we sent.
pub fn decode_pong(frame: &Frame, sent: i64) -> Result<(), DecodeError> {
    if decode_ping(frame)? == sent {
        Ok(())
    } else {
        Err(DecodeError::Mismatch("pong payload differs from ping"))
    }
}

/// Parses the status JSON. Only the first JSON value counts: some mods append data after it.
/// serde_json stops at 128 levels of nesting, so hostile depth is an error, not a stack
/// overflow. With `raw`, the whole document is kept in [`ServerStatus::raw`] (favicon
/// removed); without, it is read for the fields alone ([`super::status_json`]: the same
/// documents accepted, the same fields), and `raw` is `Null`.
///
/// Not inlined: `benches/poll_instructions.sh` counts Minecraft polls as its calls.
#[inline(never)]
pub fn parse_status_json(bytes: &[u8], raw: bool) -> Result<ServerStatus, DecodeError> {
    if !raw {
        return parse_fields(bytes);
    }
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let mut raw = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(_)) => return Err(DecodeError::Invalid("status JSON")),
        None => return Err(DecodeError::Invalid("status JSON is empty")),
    };
    let Some(obj) = raw.as_object_mut() else {
        return Err(DecodeError::Invalid("status JSON is not an object"));
    };
    let favicon_bytes = obj.remove("favicon").and_then(|f| match f {
        Value::String(s) => Some(s.len()),
        _ => None,
    });
    let version = obj.get("version");
    let players = obj.get("players");
    let sample = players
        .and_then(|p| p.get("sample"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|e| {
                    let name = e.get("name")?.as_str()?.to_string();
                    let id = e.get("id").and_then(Value::as_str).map(str::to_string);
                    Some((name, id))
                })
                .take(MAX_SAMPLE)
                .collect()
        })
        .unwrap_or_default();
    let forge_mods = obj
        .get("modinfo")
        .and_then(|m| m.get("modList"))
        .or_else(|| obj.get("forgeData").and_then(|f| f.get("mods")))
        .and_then(Value::as_array)
        .map(Vec::len);
    let forge_channels = obj
        .get("forgeData")
        .and_then(|f| f.get("channels"))
        .and_then(Value::as_array)
        .map(Vec::len);
    let status = ServerStatus {
        version_name: version
            .and_then(|v| v.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string),
        version_protocol: version
            .and_then(|v| v.get("protocol"))
            .and_then(Value::as_i64),
        online: players.and_then(|p| p.get("online")).and_then(count),
        max: players.and_then(|p| p.get("max")).and_then(count),
        sample,
        description: obj.get("description").cloned(),
        favicon_bytes,
        forge_mods,
        forge_channels,
        raw: Value::Null,
    };
    Ok(ServerStatus { raw, ..status })
}

/// The status JSON read for the fields alone, without building the document.
fn parse_fields(bytes: &[u8]) -> Result<ServerStatus, DecodeError> {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Top>();
    match stream.next() {
        Some(Ok(Top(Some(status)))) => Ok(status),
        Some(Ok(Top(None))) => Err(DecodeError::Invalid("status JSON is not an object")),
        Some(Err(_)) => Err(DecodeError::Invalid("status JSON")),
        None => Err(DecodeError::Invalid("status JSON is empty")),
    }
}

/// A player count: a non-negative number (some servers send it as a string), capped to u32.
fn count(v: &Value) -> Option<u32> {
    let n = match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))?,
        Value::String(s) => s.trim().parse::<u64>().ok()?,
        _ => return None,
    };
    Some(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::super::varint::decode_frame;
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The document's example response, as a server would frame it.
    const DOC_JSON: &str = r#"{ "version": { "name": "1.7.2", "protocol": 4 }, "players": { "max": 100, "online": 5, "sample":[ {"name":"Thinkofdeath", "id":"4566e69fc90748ee8d71d7ba5aa00d20"} ] }, "description": {"text":"Hello world"}, "favicon": "data:image/png;base64,<data>" }"#;

    /// The handshake for localhost:25565 is laid out field by field as the document says.
    #[test]
    fn handshake_bytes() {
        let mut out = Vec::new();
        encode_status_query("localhost", 25565, &mut out);
        let expected: &[u8] = &[
            0x13, // frame length: 19 = id 1 + version 5 + host 1+9 + port 2 + state 1
            0x00, // packet id: handshake
            0xff, 0xff, 0xff, 0xff, 0x0f, // protocol version -1
            0x09, b'l', b'o', b'c', b'a', b'l', b'h', b'o', b's', b't', // "localhost"
            0x63, 0xdd, // port 25565, big-endian
            0x01, // next state: status
            0x01, 0x00, // status request: length 1, id 0
        ];
        assert_eq!(out, expected);
    }

    /// The document's example JSON decodes to its stated values; the favicon is counted, not kept.
    #[test]
    fn document_example() {
        let mut wire = Vec::new();
        encode_status_response(DOC_JSON, &mut wire);
        let (frame, used) = decode_frame(&wire, 1 << 20).unwrap().unwrap();
        assert_eq!(used, wire.len());
        let s = decode_status_response(&frame).unwrap();
        assert_eq!(s.version_name.as_deref(), Some("1.7.2"));
        assert_eq!(s.version_protocol, Some(4));
        assert_eq!((s.online, s.max), (Some(5), Some(100)));
        assert_eq!(
            s.sample,
            vec![(
                "Thinkofdeath".to_string(),
                Some("4566e69fc90748ee8d71d7ba5aa00d20".to_string())
            )]
        );
        assert_eq!(s.description, Some(json!({"text": "Hello world"})));
        assert_eq!(s.favicon_bytes, Some("data:image/png;base64,<data>".len()));
        assert!(s.raw.get("favicon").is_none());
    }

    /// `players`, `version` and `description` may all be missing.
    #[test]
    fn missing_parts() {
        let s = parse_status_json(br#"{"version":{"name":"x","protocol":763}}"#, true).unwrap();
        assert_eq!((s.online, s.max, s.description), (None, None, None));
        assert!(s.sample.is_empty());
        let s = parse_status_json(b"{}", true).unwrap();
        assert_eq!(s.version_name, None);
    }

    /// Data some mods append after the JSON is ignored.
    #[test]
    fn trailing_data_ignored() {
        let s = parse_status_json(br#"{"players":{"online":1,"max":2}}\x00\x01garbage{"#, true)
            .unwrap();
        assert_eq!((s.online, s.max), (Some(1), Some(2)));
    }

    /// 10,000 levels of nesting hit serde_json's recursion limit: an error, no stack overflow.
    #[test]
    fn deep_json_is_an_error() {
        let mut deep = String::from(r#"{"description":"#);
        deep.push_str(&"[".repeat(10_000));
        deep.push_str(&"]".repeat(10_000));
        deep.push('}');
        for raw in [true, false] {
            assert_eq!(
                parse_status_json(deep.as_bytes(), raw),
                Err(DecodeError::Invalid("status JSON"))
            );
        }
        // Nesting in a key the lean parse skips counts the same.
        let skipped = deep.replace("description", "other");
        assert_eq!(
            parse_status_json(skipped.as_bytes(), false),
            Err(DecodeError::Invalid("status JSON"))
        );
    }

    /// Not JSON, or JSON that is not an object, is invalid.
    #[test]
    fn invalid_json() {
        assert!(parse_status_json(b"{\"players\":", true).is_err());
        assert!(parse_status_json(b"[1,2]", true).is_err());
        assert!(parse_status_json(b"", true).is_err());
    }

    /// Forge mod lists are kept as counts only.
    #[test]
    fn forge_counts() {
        let s = parse_status_json(
            br#"{"modinfo":{"type":"FML","modList":[{"modid":"a"},{"modid":"b"}]}}"#,
            true,
        )
        .unwrap();
        assert_eq!((s.forge_mods, s.forge_channels), (Some(2), None));
        let s = parse_status_json(
            br#"{"forgeData":{"channels":[{},{},{}],"mods":[{}],"fmlNetworkVersion":2}}"#,
            true,
        )
        .unwrap();
        assert_eq!((s.forge_mods, s.forge_channels), (Some(1), Some(3)));
    }

    /// Counts as strings are accepted; negative or absurd counts are dropped or capped.
    #[test]
    fn lenient_counts() {
        let s = parse_status_json(br#"{"players":{"online":"7","max":-3}}"#, true).unwrap();
        assert_eq!((s.online, s.max), (Some(7), None));
        let s = parse_status_json(br#"{"players":{"online":99999999999,"max":1}}"#, true).unwrap();
        assert_eq!(s.online, Some(u32::MAX));
    }

    /// A pong must echo the ping; a different payload is a mismatch.
    #[test]
    fn pong_echo() {
        let mut wire = Vec::new();
        encode_ping(0x0102_0304_0506_0708, &mut wire);
        assert_eq!(wire, [9, 1, 1, 2, 3, 4, 5, 6, 7, 8]);
        let (frame, _) = decode_frame(&wire, 64).unwrap().unwrap();
        assert_eq!(decode_pong(&frame, 0x0102_0304_0506_0708), Ok(()));
        assert_eq!(
            decode_pong(&frame, 5),
            Err(DecodeError::Mismatch("pong payload differs from ping"))
        );
    }

    /// A frame whose length starts with `FF` is a frame; `FF 00` is a legacy kick.
    #[test]
    fn reply_frame_vs_kick() {
        let mut wire = Vec::new();
        encode_status_response(
            &format!("{{\"description\":\"{}\"}}", "x".repeat(234)),
            &mut wire,
        );
        assert_eq!(wire[0], 0xff);
        let (frame, used) = decode_reply_frame(&wire, 1024).unwrap().unwrap();
        assert_eq!((frame.id, used), (0, wire.len()));
        assert!(matches!(
            decode_reply_frame(&[0xff, 0x00, 0x17, 0x00, 0x41], 1024),
            Err(DecodeError::UnexpectedType { found: 0xff, .. })
        ));
        assert_eq!(decode_reply_frame(&[0xff], 1024), Ok(None));
    }

    /// A string length beyond its frame is rejected as broken (`malformed`), not too large.
    #[test]
    fn status_string_longer_than_frame() {
        let frame = Frame {
            id: 0,
            body: vec![0x7f, b'{', b'}'],
        };
        assert!(matches!(
            decode_status_response(&frame),
            Err(DecodeError::Overrun { .. })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Handshakes survive a round trip.
        #[test]
        fn handshake_round_trip(pv in any::<i32>(), host in "[a-z0-9.-]{0,64}", port in any::<u16>(), next in any::<i32>()) {
            let h = Handshake { protocol_version: pv, address: host, port, next_state: next };
            let mut wire = Vec::new();
            encode_handshake(&h, &mut wire);
            let (frame, used) = decode_frame(&wire, 1024).unwrap().unwrap();
            prop_assert_eq!(used, wire.len());
            prop_assert_eq!(decode_handshake(&frame), Ok(h));
        }

        /// Arbitrary frame bodies never panic any decoder.
        #[test]
        fn arbitrary_bodies(id in 0i32..3, body in proptest::collection::vec(any::<u8>(), 0..128)) {
            let frame = Frame { id, body };
            let _ = decode_status_response(&frame);
            let _ = decode_handshake(&frame);
            let _ = decode_pong(&frame, 0);
        }

        /// Arbitrary text as status JSON never panics, and the lean parse agrees with the
        /// document parse on it.
        #[test]
        fn arbitrary_json(text in "[{}\\[\\]\":,a-z0-9 ]{0,200}") {
            prop_assert_eq!(lean(text.as_bytes()), full(text.as_bytes()));
        }

        /// Near-JSON made of the keys the parse reads and awkward values (escapes, lone
        /// surrogates, big and negative numbers, numeric strings, invalid UTF-8, trailing
        /// data): the lean parse accepts and refuses the same texts as the document parse,
        /// and finds the same fields.
        #[test]
        fn lean_parse_agrees(parts in proptest::collection::vec(json_piece(), 0..60)) {
            let text: Vec<u8> = parts.concat();
            prop_assert_eq!(lean(&text), full(&text));
        }

        /// Well-formed documents shaped like status responses, duplicate keys included.
        #[test]
        fn lean_parse_agrees_on_documents(doc in status_document()) {
            let text = doc.into_bytes();
            let full = full(&text);
            prop_assert!(full.is_ok());
            prop_assert_eq!(lean(&text), full);
        }
    }

    /// The lean parse (no document kept).
    fn lean(text: &[u8]) -> Result<ServerStatus, String> {
        parse_status_json(text, false).map_err(|e| e.to_string())
    }

    /// The document parse, its document dropped for comparison.
    fn full(text: &[u8]) -> Result<ServerStatus, String> {
        parse_status_json(text, true)
            .map(|s| ServerStatus {
                raw: Value::Null,
                ..s
            })
            .map_err(|e| e.to_string())
    }

    const KEYS: &[&str] = &[
        "version",
        "players",
        "description",
        "favicon",
        "modinfo",
        "forgeData",
        "name",
        "protocol",
        "online",
        "max",
        "sample",
        "id",
        "modList",
        "mods",
        "channels",
        "text",
        "extra",
        "other",
    ];

    /// A piece of near-JSON text.
    fn json_piece() -> impl Strategy<Value = Vec<u8>> {
        let key = proptest::sample::select(KEYS).prop_map(|k| format!("\"{k}\":").into_bytes());
        let scalar = proptest::sample::select(
            &[
                "1",
                "-3",
                "0",
                "-0",
                "2.5",
                "-2.5",
                "1e3",
                "1e999",
                "99999999999",
                "18446744073709551616",
                "9223372036854775808",
                "\"7\"",
                "\" 12 \"",
                "\"x\"",
                "\"\\u00e9\\n\"",
                "\"\\ud800\"",
                "\"\\ud83d\\ude00\"",
                "\"\\q\"",
                "true",
                "null",
                "[]",
                "{}",
            ][..],
        )
        .prop_map(|v| v.as_bytes().to_vec());
        let punct = proptest::sample::select(&["{", "}", "[", "]", ",", ":", " ", "\""][..])
            .prop_map(|v| v.as_bytes().to_vec());
        let raw = proptest::collection::vec(any::<u8>(), 1..3);
        prop_oneof![4 => key, 4 => scalar, 4 => punct, 1 => raw]
    }

    /// A JSON value built from the keys the parse reads, as text.
    fn status_document() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            (-1e6f64..1e6).prop_map(|f| format!("{f:?}")),
            "[a-z0-9 §\\\\\"]{0,8}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            "[0-9 ]{0,4}".prop_map(|s| format!("\"{s}\"")),
            Just("true".to_string()),
            Just("null".to_string()),
        ];
        let value = leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..6).prop_map(
                    |kv| {
                        let fields: Vec<String> =
                            kv.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                        format!("{{{}}}", fields.join(","))
                    }
                ),
            ]
        });
        proptest::collection::vec((proptest::sample::select(KEYS), value), 0..8).prop_map(|kv| {
            let fields: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", fields.join(","))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any ping payload comes back from its frame, and the pong check accepts exactly it.
        #[test]
        fn ping_round_trip(payload in any::<i64>(), other in any::<i64>()) {
            let mut wire = Vec::new();
            encode_ping(payload, &mut wire);
            let (frame, used) = decode_frame(&wire, 64).unwrap().unwrap();
            prop_assert_eq!(used, wire.len());
            prop_assert_eq!(decode_ping(&frame), Ok(payload));
            prop_assert_eq!(decode_pong(&frame, payload), Ok(()));
            prop_assert_eq!(decode_pong(&frame, other).is_ok(), other == payload);
        }

        /// The first write of a query is a status handshake for that host and port, then an
        /// empty status request.
        #[test]
        fn status_query_round_trip(host in "[a-z0-9.-]{0,64}", port in any::<u16>()) {
            let mut wire = Vec::new();
            encode_status_query(&host, port, &mut wire);
            let (handshake, used) = decode_frame(&wire, 1024).unwrap().unwrap();
            prop_assert_eq!(decode_handshake(&handshake), Ok(Handshake {
                protocol_version: PROTOCOL_VERSION_PING,
                address: host,
                port,
                next_state: NEXT_STATE_STATUS,
            }));
            let (request, rest) = decode_frame(&wire[used..], 1024).unwrap().unwrap();
            prop_assert_eq!(request, Frame { id: PACKET_STATUS, body: Vec::new() });
            prop_assert_eq!(used + rest, wire.len());
        }

        /// A status response built from any values decodes back to them through the frame.
        #[test]
        fn status_response_round_trip(
            name in "\\PC{0,24}",
            protocol in any::<i32>(),
            online in any::<u32>(),
            max in any::<u32>(),
            sample in proptest::collection::vec(("\\PC{0,16}", proptest::option::of("[0-9a-f]{32}")), 0..8),
            motd in "\\PC{0,40}",
            favicon in proptest::option::of("[A-Za-z0-9+/]{0,64}"),
            mods in proptest::option::of(0usize..6),
        ) {
            let mut doc = json!({
                "version": {"name": name, "protocol": protocol},
                "players": {
                    "online": online,
                    "max": max,
                    "sample": sample.iter().map(|(n, id)| match id {
                        Some(id) => json!({"name": n, "id": id}),
                        None => json!({"name": n}),
                    }).collect::<Vec<_>>(),
                },
                "description": {"text": motd},
            });
            if let Some(f) = &favicon {
                doc["favicon"] = json!(format!("data:image/png;base64,{f}"));
            }
            if let Some(n) = mods {
                doc["forgeData"] = json!({"mods": vec![json!({"modId": "m"}); n], "channels": []});
            }
            let mut wire = Vec::new();
            encode_status_response(&doc.to_string(), &mut wire);
            let (frame, used) = decode_frame(&wire, 1 << 16).unwrap().unwrap();
            prop_assert_eq!(used, wire.len());
            let status = decode_status_response(&frame).unwrap();
            prop_assert_eq!(status.version_name, Some(name));
            prop_assert_eq!(status.version_protocol, Some(i64::from(protocol)));
            prop_assert_eq!((status.online, status.max), (Some(online), Some(max)));
            prop_assert_eq!(status.sample, sample);
            prop_assert_eq!(status.description, Some(json!({"text": motd})));
            prop_assert_eq!(status.favicon_bytes, favicon.map(|f| f.len() + 22));
            prop_assert_eq!(status.forge_mods, mods);
            prop_assert_eq!(status.forge_channels, mods.map(|_| 0));
            if let Some(obj) = doc.as_object_mut() {
                obj.remove("favicon");
            }
            prop_assert_eq!(status.raw, doc);
        }
    }
}
