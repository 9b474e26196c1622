//! Facepunch's WebRCON (Rust's admin console), the codec: the JSON messages, bytes <->
//! values. The WebSocket under them is [`websocket`]; the dialogue (handshake, one command,
//! its reply among whatever else the console broadcasts) is [`exchange`].
//!
//! A command is one text message `{"Identifier":N,"Message":"serverinfo","Name":"WebRcon"}`;
//! the server answers with `{"Message":"...","Identifier":N,"Type":"Generic","Stacktrace":""}`
//! carrying the same identifier, and between the two it may send any number of messages of
//! its own (console log lines and chat with identifier 0 or -1, replies to other clients'
//! commands). `serverinfo`'s `Message` is itself JSON: `Hostname`, `MaxPlayers`, `Players`,
//! `Queued`, `Joining`, `EntityCount`, `GameTime`, `Uptime` (seconds), `Map`, `Framerate`,
//! `Memory` (MB), `MemoryUsageSystem` (MB, newer servers), `Collections`, `NetworkIn`,
//! `NetworkOut` (bytes per second), `Restarting`, `SaveCreatedTime` (field names as the
//! public clients read them: RustWebRcon, PlayerCountBot, rustrcon's TypeScript types).

pub mod exchange;
pub mod websocket;

use serde::Deserialize;

use crate::protocol::DecodeError;
use crate::status::Health;

/// The console command printing the server's figures as JSON.
pub const SERVERINFO: &str = "serverinfo";
/// The `Name` we send: what Facepunch's own web console sends.
pub const NAME: &str = "WebRcon";
/// One MB as the server counts it (`Memory`, `MemoryUsageSystem`).
const MB: f64 = 1024.0 * 1024.0;

/// A command message, as sent.
pub fn request(identifier: i32, command: &str) -> String {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "PascalCase")]
    struct Request<'a> {
        identifier: i32,
        message: &'a str,
        name: &'a str,
    }
    let r = Request {
        identifier,
        message: command,
        name: NAME,
    };
    // A struct of an integer and two strings always serializes.
    serde_json::to_string(&r).unwrap_or_default()
}

/// One message from the console.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Reply {
    /// The identifier of the command it answers; 0 or -1 for the console's own output.
    /// Anything else but an integer (missing, fractional, out of range) reads as none.
    #[serde(default, deserialize_with = "lenient_id")]
    pub identifier: Option<i64>,
    #[serde(default)]
    pub message: String,
    /// `Generic`, `Chat`, `Warning`, `Error`, ...
    #[serde(default, rename = "Type")]
    pub kind: Option<String>,
}

fn lenient_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(v.as_i64())
}

/// A message's JSON; an error when it is not a JSON object.
pub fn parse_reply(text: &[u8]) -> Result<Reply, DecodeError> {
    serde_json::from_slice(text).map_err(|_| DecodeError::Invalid("WebRCON message (not JSON)"))
}

/// What `serverinfo` says, as far as we read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerInfo {
    pub health: Health,
    /// `Players`, `MaxPlayers`, `Queued`: the A2S poll has its own, these only fill gaps.
    pub players: Option<u32>,
    pub max_players: Option<u32>,
    pub queued: Option<u32>,
}

/// `serverinfo`'s figures. Every field is optional and read leniently (a number as a
/// number or as a numeric string; anything else, a negative or a non-finite value, reads as
/// absent); an error only when `Message` is not a JSON object or holds none of them.
pub fn parse_serverinfo(message: &str) -> Result<ServerInfo, DecodeError> {
    let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(message)
        .map_err(|_| DecodeError::Invalid("WebRCON serverinfo (not a JSON object)"))?;
    let num = |key: &str| -> Option<f64> {
        let v = map.get(key)?;
        let n = match v {
            serde_json::Value::Number(n) => n.as_f64()?,
            serde_json::Value::String(s) => s.trim().parse::<f64>().ok()?,
            _ => return None,
        };
        (n.is_finite() && n >= 0.0).then_some(n)
    };
    let count = |key: &str| {
        num(key)
            .filter(|n| *n <= f64::from(u32::MAX))
            .map(|n| n as u32)
    };
    let health = Health {
        frame_rate_hertz: num("Framerate"),
        network_receive_bytes_per_second: num("NetworkIn"),
        network_transmit_bytes_per_second: num("NetworkOut"),
        uptime_seconds: num("Uptime"),
        memory_heap_bytes: num("Memory").map(|m| m * MB),
        memory_resident_bytes: num("MemoryUsageSystem").map(|m| m * MB),
        entities: num("EntityCount"),
        players_joining: num("Joining"),
        ..Health::default()
    };
    let info = ServerInfo {
        health,
        players: count("Players"),
        max_players: count("MaxPlayers"),
        queued: count("Queued"),
    };
    if info.health.is_empty() && info.players.is_none() {
        return Err(DecodeError::Invalid("WebRCON serverinfo (no figures)"));
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request, byte for byte.
    #[test]
    fn request_bytes() {
        assert_eq!(
            request(7, SERVERINFO),
            r#"{"Identifier":7,"Message":"serverinfo","Name":"WebRcon"}"#
        );
        assert_eq!(
            request(-3, "say \"hi\""),
            r#"{"Identifier":-3,"Message":"say \"hi\"","Name":"WebRcon"}"#
        );
    }

    /// A reply as a Rust server sends it (Message holds serverinfo's JSON, pretty-printed).
    const SERVERINFO_REPLY: &str = r#"{
  "Message": "{\n  \"Hostname\": \"My Rust Server\",\n  \"MaxPlayers\": 100,\n  \"Players\": 37,\n  \"Queued\": 2,\n  \"Joining\": 3,\n  \"ReservedSlots\": 0,\n  \"EntityCount\": 184213,\n  \"GameTime\": \"11/29/2026 10:31:12\",\n  \"Uptime\": 86400,\n  \"Map\": \"Procedural Map\",\n  \"Framerate\": 59.0,\n  \"Memory\": 6144,\n  \"MemoryUsageSystem\": 9120,\n  \"Collections\": 412,\n  \"NetworkIn\": 51234,\n  \"NetworkOut\": 812345,\n  \"Restarting\": false,\n  \"SaveCreatedTime\": \"2026-11-28T10:00:00\",\n  \"Version\": 2560,\n  \"Protocol\": \"2560.271.1\"\n}",
  "Identifier": 7,
  "Type": "Generic",
  "Stacktrace": ""
}"#;

    #[test]
    fn serverinfo_reply() {
        let r = parse_reply(SERVERINFO_REPLY.as_bytes()).unwrap();
        assert_eq!(r.identifier, Some(7));
        assert_eq!(r.kind.as_deref(), Some("Generic"));
        let info = parse_serverinfo(&r.message).unwrap();
        let h = info.health;
        assert_eq!(h.frame_rate_hertz, Some(59.0));
        assert_eq!(h.network_receive_bytes_per_second, Some(51234.0));
        assert_eq!(h.network_transmit_bytes_per_second, Some(812345.0));
        assert_eq!(h.uptime_seconds, Some(86400.0));
        assert_eq!(h.memory_heap_bytes, Some(6144.0 * MB));
        assert_eq!(h.memory_resident_bytes, Some(9120.0 * MB));
        assert_eq!(h.entities, Some(184213.0));
        assert_eq!(h.players_joining, Some(3.0));
        assert_eq!(h.tick_rate_hertz, None);
        assert_eq!(h.cpu_usage_ratio, None);
        assert_eq!(
            (info.players, info.max_players, info.queued),
            (Some(37), Some(100), Some(2))
        );
    }

    /// Console broadcasts (identifier 0 or -1), odd identifiers, and what is not JSON.
    #[test]
    fn other_messages() {
        let chat = br#"{"Message":"[CHAT] x: hi","Identifier":-1,"Type":"Chat"}"#;
        assert_eq!(parse_reply(chat).unwrap().identifier, Some(-1));
        let odd = br#"{"Message":"x","Identifier":1.5}"#;
        assert_eq!(parse_reply(odd).unwrap().identifier, None);
        let none = br#"{"Message":"x"}"#;
        assert_eq!(parse_reply(none).unwrap().identifier, None);
        assert!(parse_reply(b"not json").is_err());
        assert!(parse_reply(b"[1,2]").is_err());
        assert!(parse_reply(b"").is_err());
    }

    /// Strings for numbers, negatives, wrong types; a Message that is not an object or has
    /// no figures.
    #[test]
    fn lenient_fields() {
        let info =
            parse_serverinfo(r#"{"Framerate":"30.5","Memory":-1,"EntityCount":true,"Players":3}"#)
                .unwrap();
        assert_eq!(info.health.frame_rate_hertz, Some(30.5));
        assert_eq!(info.health.memory_heap_bytes, None);
        assert_eq!(info.health.entities, None);
        assert_eq!(info.players, Some(3));
        assert!(parse_serverinfo("Unknown command: serverinfo").is_err());
        assert!(parse_serverinfo(r#"{"Hostname":"x"}"#).is_err());
        assert!(parse_serverinfo("[]").is_err());
        let huge = parse_serverinfo(r#"{"Players":1e300,"Framerate":1}"#).unwrap();
        assert_eq!(huge.players, None);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let _ = parse_reply(&bytes);
            let _ = parse_serverinfo(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn arbitrary_fields(k in "[A-Za-z]{1,12}", v in "\\PC{0,20}") {
            let text = format!("{{\"{k}\":{v}}}");
            let _ = parse_serverinfo(&text);
        }
    }
}
