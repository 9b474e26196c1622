//! Player names from the RCON consoles of games whose A2S reply hides them, text -> names.
//! Pure functions, and the one command a console query runs for each ([`Script`]).
//!
//! - Project Zomboid, `players`: `Players connected (2): ` then one `-name` line each
//!   (the format other projects' parsers and server wrappers read and write);
//! - Conan Exiles, `listplayers`: a `|`-separated table, header
//!   `Idx | Char name | Player name | User ID | Platform ID | Platform Name`, one row per
//!   player (`  0 | AliceChar | Alice#1000 | A-1HFF | 76561198000000001 |  STEAM`), the
//!   header alone on an empty server. The character name is what players see in game, so it
//!   is the name published; the platform ids are never kept.

use std::time::Duration;

use crate::protocol::exchange::Error;
use crate::protocol::rcon::exchange::Script as RconScript;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The most names read from one reply.
pub const MAX_NAMES: usize = 4096;

/// Which game's console.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Console {
    /// Project Zomboid: `players`.
    Zomboid,
    /// Conan Exiles: `listplayers`.
    Conan,
}

impl Console {
    pub fn command(self) -> &'static str {
        match self {
            Console::Zomboid => "players",
            Console::Conan => "listplayers",
        }
    }

    /// The names in the reply; an error when the reply is not this command's.
    pub fn parse(self, text: &str) -> Result<Vec<String>, DecodeError> {
        match self {
            Console::Zomboid => parse_zomboid(text),
            Console::Conan => parse_conan(text),
        }
    }
}

/// `Players connected (N):` and the `-name` lines after it.
pub fn parse_zomboid(text: &str) -> Result<Vec<String>, DecodeError> {
    let mut lines = text.lines();
    let count = lines
        .by_ref()
        .find_map(|l| l.trim().strip_prefix("Players connected ("))
        .and_then(|rest| rest.split_once(')'))
        .and_then(|(n, _)| n.trim().parse::<u32>().ok())
        .ok_or(DecodeError::Invalid(
            "Project Zomboid players: no `Players connected (N):` line",
        ))?;
    let names: Vec<String> = lines
        .filter_map(|l| l.trim().strip_prefix('-'))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .take(MAX_NAMES.min(count as usize))
        .map(str::to_string)
        .collect();
    Ok(names)
}

/// The `Char name` column of every row under the `Idx | Char name | ...` header.
pub fn parse_conan(text: &str) -> Result<Vec<String>, DecodeError> {
    let mut lines = text.lines();
    let header = lines
        .by_ref()
        .find(|l| l.contains('|'))
        .ok_or(DecodeError::Invalid("Conan listplayers: no table header"))?;
    let column = header
        .split('|')
        .position(|c| c.trim().eq_ignore_ascii_case("Char name"))
        .ok_or(DecodeError::Invalid(
            "Conan listplayers: no `Char name` column",
        ))?;
    Ok(lines
        .filter(|l| l.contains('|'))
        .filter_map(|l| l.split('|').nth(column))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .take(MAX_NAMES)
        .map(str::to_string)
        .collect())
}

/// One console query: the game's player command, once.
#[derive(Debug, Clone, Copy)]
pub struct Script(pub Console);

impl RconScript for Script {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        replies.is_empty().then(|| self.0.command().to_string())
    }

    /// The names alone in a [`Status`] (the A2S poll gives the rest).
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        let reply = replies.first().map_or("", String::as_str);
        let names = self.0.parse(reply)?;
        let players = names
            .into_iter()
            .map(|name| Player {
                name,
                ..Player::default()
            })
            .collect();
        Ok(Status {
            latency,
            players: Some(players),
            ..Status::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zomboid_players() {
        let text = "Players connected (2): \n-alice\n-Bob Smith\n";
        assert_eq!(parse_zomboid(text).unwrap(), ["alice", "Bob Smith"]);
        assert_eq!(
            parse_zomboid("Players connected (0): \n").unwrap(),
            Vec::<String>::new()
        );
        // No more names than the count says.
        assert_eq!(
            parse_zomboid("Players connected (1):\n-a\n-b\n").unwrap(),
            ["a"]
        );
        assert!(parse_zomboid("Unknown command players").is_err());
        assert!(parse_zomboid("Players connected (x):\n-a").is_err());
    }

    #[test]
    fn conan_listplayers() {
        let text = "Idx | Char name | Player name |      User ID |       Platform ID | Platform Name\n  \
                      0 | AliceChar | Alice#1000 | A-1HFFLI28NN | 76561198000000001 |         STEAM\n  \
                      3 | Bob Char | Bob#2000 | B-1HFFLI28NN | 76561198000000002 |         STEAM\n";
        assert_eq!(parse_conan(text).unwrap(), ["AliceChar", "Bob Char"]);
        let empty = "Idx | Char name | Player name | User ID | Platform ID | Platform Name\n";
        assert_eq!(parse_conan(empty).unwrap(), Vec::<String>::new());
        assert!(parse_conan("Couldn't find the command: listplayers").is_err());
        assert!(parse_conan("a | b\n1 | 2").is_err());
    }

    #[test]
    fn script_runs_one_command() {
        let mut s = Script(Console::Conan);
        assert_eq!(s.next_command(&[]).as_deref(), Some("listplayers"));
        assert_eq!(s.next_command(&["x".into()]), None);
        let st = s
            .finish(
                vec!["Idx | Char name\n0 | Zed\n".into()],
                Duration::from_millis(3),
            )
            .unwrap();
        assert_eq!(st.players.unwrap()[0].name, "Zed");
        assert!(Script(Console::Zomboid)
            .finish(vec![], Duration::ZERO)
            .is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,200}") {
            let _ = parse_zomboid(&s);
            let _ = parse_conan(&s);
            let _ = parse_zomboid(&format!("Players connected (3):\n{s}"));
            let _ = parse_conan(&format!("Idx | Char name\n{s}"));
        }
    }
}
