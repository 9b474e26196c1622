//! Factorio over RCON (no query protocol exists): `/players online count` gives the count,
//! `/players online` the list. Codec: the replies' text to a [`Status`]; the dialogue is the
//! shared RCON exchange ([`crate::protocol::rcon::exchange`]) running [`Script`]
//! ([`exchange`]). What real servers do: docs/protocols/factorio.md.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use crate::protocol::exchange::{Error, Params};
use crate::protocol::rcon::exchange::Script as RconScript;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The count.
pub const COUNT: &str = "/players online count";
/// The list (with its count on the first line).
pub const LIST: &str = "/players online";

/// The count on a reply's first line, `Online players (N):`.
pub fn decode_count(reply: &str) -> Result<u32, DecodeError> {
    let line = reply.lines().next().unwrap_or("").trim();
    let inner = line
        .strip_prefix("Online players (")
        .and_then(|r| r.split_once(')'))
        .map(|(n, _)| n)
        .ok_or(DecodeError::Invalid("Factorio player count line"))?;
    inner
        .parse()
        .map_err(|_| DecodeError::Invalid("Factorio player count"))
}

/// The names of `/players online`: every line after the first, `  NAME (online)`.
pub fn decode_list(reply: &str) -> Result<Vec<String>, DecodeError> {
    decode_count(reply)?;
    Ok(reply
        .lines()
        .skip(1)
        .filter_map(|l| {
            let l = l.trim();
            let name = l.strip_suffix("(online)").unwrap_or(l).trim_end();
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect())
}

/// The commands of one poll: the count alone, or the list (which carries the count).
#[derive(Debug, Clone, Copy)]
pub struct Script {
    pub params: Params,
}

impl RconScript for Script {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        let cmd = if self.params.players { LIST } else { COUNT };
        replies.is_empty().then(|| cmd.to_string())
    }

    /// `up` means RCON answered: the server reports no name or capacity.
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        let reply = replies.first().map_or("", String::as_str);
        let online = decode_count(reply)?;
        let players = if self.params.players {
            let names = decode_list(reply)?;
            Some(
                names
                    .into_iter()
                    .map(|name| Player {
                        name,
                        ..Player::default()
                    })
                    .collect(),
            )
        } else {
            None
        };
        Ok(Status {
            online,
            latency,
            players,
            game: Some("Factorio".into()),
            ..Status::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_replies() {
        assert_eq!(decode_count("Online players (3):"), Ok(3));
        assert_eq!(decode_count("Online players (0):\n"), Ok(0));
        let list = "Online players (2):\n  alice (online)\n  bob (online)";
        assert_eq!(decode_list(list).unwrap(), ["alice", "bob"]);
        for bad in [
            "",
            "Unknown command",
            "Online players (x):",
            "Online players (3",
        ] {
            assert!(decode_count(bad).is_err(), "{bad:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,80}") {
            let _ = decode_list(&s);
        }
    }
}
