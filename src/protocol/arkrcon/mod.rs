//! ARK: Survival Ascended over its RCON console (it answers no A2S: its servers list through
//! Epic Online Services only). `ListPlayers` gives who is online; the server says nothing
//! about its name or capacity there (the target's `max_players` stands in for the latter).
//! Codec: the reply's text to a [`Status`]; the dialogue is the shared RCON exchange
//! ([`crate::protocol::rcon::exchange`]) running [`Script`] ([`exchange`]). What real
//! servers do: docs/protocols/arkrcon.md.
//!
//! Why a protocol of its own rather than Factorio's with another command: the `protocol`
//! label, `module=` and the config name the console's dialect, and an operator reading
//! `protocol="factorio"` on an ARK server would be misled; both run on the shared
//! `rcon::exchange`, so the only code here is ARK's reply.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use crate::protocol::exchange::{Error, Params};
use crate::protocol::rcon::exchange::Script as RconScript;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The command listing who is online.
pub const LIST: &str = "ListPlayers";
/// What an empty server answers (ARK pads its replies with a space and newlines).
pub const NOBODY: &str = "No Players Connected";
/// The most players read from one reply.
pub const MAX_PLAYERS: usize = 4096;

/// The players of a `ListPlayers` reply: `N. Name, ID` lines (ID: the EOS product user id on
/// ASA, a SteamID64 on ARK: Survival Evolved), or [`NOBODY`]. A name may hold commas: the id
/// is what follows the last one. A reply with neither is not `ListPlayers`' (an unknown
/// command, a server still loading): an error.
pub fn decode_list(reply: &str) -> Result<Vec<Player>, DecodeError> {
    let mut players = Vec::new();
    let mut nobody = false;
    for line in reply.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.eq_ignore_ascii_case(NOBODY) {
            nobody = true;
            continue;
        }
        let Some((index, rest)) = line.split_once(". ") else {
            return Err(DecodeError::Invalid(
                "ARK ListPlayers: a line not `N. Name, ID`",
            ));
        };
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            return Err(DecodeError::Invalid(
                "ARK ListPlayers: a line not `N. Name, ID`",
            ));
        }
        // The id is a player's account: not kept (nothing published needs it).
        let name = rest.rsplit_once(',').map_or(rest, |(name, _)| name);
        if players.len() < MAX_PLAYERS {
            players.push(Player {
                name: name.trim().to_string(),
                ..Player::default()
            });
        }
    }
    if players.is_empty() && !nobody {
        return Err(DecodeError::Invalid(
            "ARK ListPlayers: neither players nor `No Players Connected`",
        ));
    }
    Ok(players)
}

/// One poll: `ListPlayers`, once (it carries the count and the names alike).
#[derive(Debug, Clone, Copy)]
pub struct Script {
    pub params: Params,
}

impl RconScript for Script {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        replies.is_empty().then(|| LIST.to_string())
    }

    /// `up` means the console answered `ListPlayers`; the names only when asked for.
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        let reply = replies.first().map_or("", String::as_str);
        let players = decode_list(reply)?;
        let online = u32::try_from(players.len()).unwrap_or(u32::MAX);
        Ok(Status {
            online,
            latency,
            players: self.params.players.then_some(players),
            game: Some("ARK: Survival Ascended".into()),
            ..Status::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(reply: &str) -> Vec<String> {
        decode_list(reply)
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect()
    }

    /// As ASA prints them (leading newline, EOS ids, trailing padding), a name with a comma,
    /// and ARK: Survival Evolved's Steam ids.
    #[test]
    fn decodes_list() {
        let asa = "\n0. Alice, 0002a1b2c3d4e5f60718293a4b5c6d7e\n1. Bob, the Builder, 00020f1e2d3c4b5a69788796a5b4c3d2\n \n";
        assert_eq!(names(asa), ["Alice", "Bob, the Builder"]);
        assert_eq!(decode_list(asa).unwrap()[0].id, None);
        assert_eq!(names("0. Carol, 76561198000000001\n"), ["Carol"]);
        assert!(names("No Players Connected\n \n").is_empty());
        assert!(names(" no players connected ").is_empty());
    }

    #[test]
    fn refuses_other_replies() {
        for bad in [
            "",
            " \n",
            "Unknown command",
            "Server received, But no response!! \n",
            "x. a, b",
            ". a, b",
        ] {
            assert!(decode_list(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn script() {
        let params = Params {
            players: true,
            ..Params::default()
        };
        let mut s = Script { params };
        assert_eq!(s.next_command(&[]).as_deref(), Some(LIST));
        assert_eq!(s.next_command(&["x".into()]), None);
        let st = s
            .finish(vec!["0. A, 1\n1. B, 2\n".into()], Duration::ZERO)
            .unwrap();
        assert_eq!((st.online, st.max), (2, 0));
        assert_eq!(st.players.unwrap().len(), 2);
        let mut s = Script {
            params: Params::default(),
        };
        let st = s.finish(vec![NOBODY.into()], Duration::ZERO).unwrap();
        assert_eq!((st.online, st.players), (0, None));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,120}") {
            if let Ok(p) = decode_list(&s) {
                proptest::prop_assert!(p.len() <= MAX_PLAYERS);
            }
        }
    }
}
