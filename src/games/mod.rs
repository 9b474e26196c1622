//! Game presets: `game = "valheim"` in a target instead of `protocol = ...`.
//!
//! Operators think in games, not protocols. A preset supplies the protocol, the port queried
//! when the address names none, and what the game is known to do differently (its
//! [`Quirks`]). The table is in [`list`], one row per game, with where each fact came from;
//! `gameserver-exporter games` prints it and the game table of docs/games.md is rendered from it
//! ([`markdown`]; a test keeps the two in step).
//!
//! # Ports
//! `query_port` is the port polled when the target's address has none. An explicit port in
//! the address is always the port polled: for Valheim (game port 2456, query port 2457) write
//! `host` or `host:2457`, not `host:2456`. When `query_port` equals the protocol's own default
//! the address is left without a port, so protocol-level behaviour for port-less addresses
//! (Minecraft's SRV lookup) is unchanged by naming the game.
//!
//! # Ids
//! Ids are gamedig's (the `gamedig` npm package's games list), so a panel that already uses
//! them can write them unchanged; gamedig's former ids are accepted as aliases.

pub mod list;

use crate::target::{Console, Protocol};

/// What a game's servers do differently from the protocol's textbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// The server answers a player-list request (A2S_PLAYER). When false the request is never
    /// sent: it could only burn its share of the poll's time.
    pub players: bool,
    /// The server answers a rules request (A2S_RULES).
    pub rules: bool,
    /// True player counts (and the join queue) are in the A2S keywords (`cp<n>` players,
    /// `mp<n>` capacity, `qp<n>` queued) because the one-byte count fields saturate at 255.
    /// The `cp`/`mp` reading applies to every A2S reply already (protocol/a2s/exchange.rs), so naming the
    /// game changes nothing there; the flag records which games are known to send them.
    pub counts_in_keywords: bool,
    /// The dialect of the game's admin console, which its `rcon = { port, password_file }`
    /// table speaks: Source RCON unless the game has its own (Rust's WebRCON, 7 Days to
    /// Die's telnet).
    pub console: Console,
}

impl Quirks {
    /// A well-behaved server.
    pub const NONE: Quirks = Quirks {
        players: true,
        rules: true,
        counts_in_keywords: false,
        console: Console::Source,
    };

    /// Never answers a player-list request.
    pub const fn no_players(self) -> Quirks {
        Quirks {
            players: false,
            ..self
        }
    }

    /// Its admin console speaks `console`, not Source RCON.
    pub const fn console(self, console: Console) -> Quirks {
        Quirks { console, ..self }
    }

    /// Sends its true counts in the A2S keywords.
    pub const fn counts_in_keywords(self) -> Quirks {
        Quirks {
            counts_in_keywords: true,
            ..self
        }
    }
}

/// One game preset: a row of [`list::GAMES`].
#[derive(Debug, PartialEq, Eq)]
pub struct Game {
    /// What `game = "..."` says: gamedig's id.
    pub id: &'static str,
    /// Other ids accepted for the same game (gamedig's former ids).
    pub aliases: &'static [&'static str],
    pub name: &'static str,
    /// The protocol the preset polls with.
    pub protocol: Protocol,
    /// Further protocols the game answers; a target may name one of them in `protocol`.
    pub also: &'static [Protocol],
    /// The port players connect to by default; documentation only, to explain `query_port`.
    pub game_port: u16,
    /// The port polled when the address names none.
    pub query_port: u16,
    pub quirks: Quirks,
    /// Where the ports and quirks come from.
    pub source: &'static str,
    /// What an operator should know (one line, no `|`).
    pub notes: &'static str,
}

/// The prefix that makes a name a game id where it could be a protocol id ([`Game::resolve`]).
pub const GAME_PREFIX: &str = "game:";

impl Game {
    /// The game by id or alias.
    pub fn find(id: &str) -> Option<&'static Game> {
        list::GAMES
            .iter()
            .find(|g| g.id == id || g.aliases.contains(&id))
    }

    /// What a name that may be a protocol id or a game id means, wherever one name can be
    /// either (`/probe?module=`, the `query` command): a protocol id wins, and
    /// `game:ID` (the [`GAME_PREFIX`]) selects the game whose id or alias is `ID`. Ids
    /// are taken by both: `ase` is the All-Seeing Eye protocol, `game:ase` is ARK:
    /// Survival Evolved (gamedig's id); `minecraft` is the protocol, `game:minecraft` the
    /// preset with its port and quirks.
    pub fn resolve(name: &str) -> Option<(Protocol, Option<&'static Game>)> {
        if let Some(id) = name.strip_prefix(GAME_PREFIX) {
            return Game::find(id).map(|g| (g.protocol, Some(g)));
        }
        if let Some(p) = Protocol::from_name(name) {
            return Some((p, None));
        }
        Game::find(name).map(|g| (g.protocol, Some(g)))
    }

    /// Whether a target of this game may be polled with `protocol`.
    pub fn speaks(&self, protocol: Protocol) -> bool {
        self.protocol == protocol || self.also.contains(&protocol)
    }

    /// Every protocol the game answers, the preset's first.
    pub fn protocols(&self) -> impl Iterator<Item = Protocol> + '_ {
        std::iter::once(self.protocol).chain(self.also.iter().copied())
    }

    /// The port to write into a port-less address polled with `protocol`, if the protocol's
    /// own default is not already the right one (see the module doc on SRV).
    pub fn port_for(&self, protocol: Protocol) -> Option<u16> {
        (self.query_port != protocol.default_port()).then_some(self.query_port)
    }
}

/// `gameserver-exporter games`: one game per line, columns aligned.
pub fn text() -> String {
    use std::fmt::Write;
    let rows: Vec<[String; 5]> = list::GAMES
        .iter()
        .map(|g| {
            [
                g.id.to_string(),
                g.name.to_string(),
                protocols(g),
                g.query_port.to_string(),
                g.notes.to_string(),
            ]
        })
        .collect();
    let head = ["ID", "NAME", "PROTOCOL", "PORT", "NOTES"];
    let mut width = head.map(str::len);
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(head.map(String::from)).chain(rows) {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(c);
            } else {
                let _ = write!(line, "{c:<w$}  ", w = width[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn protocols(g: &Game) -> String {
    g.protocols()
        .map(Protocol::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The game table of docs/games.md (between its marker comments), rendered from
/// [`list::GAMES`].
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "| Game | `game =` | Protocol | Query port | Game port | Notes | Source |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for g in list::GAMES {
        let mut id = format!("`{}`", g.id);
        for a in g.aliases {
            let _ = write!(id, ", `{a}`");
        }
        let _ = writeln!(
            out,
            "| {} | {id} | {} | {} | {} | {} | {} |",
            g.name,
            protocols(g),
            g.query_port,
            g.game_port,
            g.notes,
            g.source
        );
    }
    out
}

/// The marker comments around the generated table in docs/games.md.
pub const TABLE_BEGIN: &str = "<!-- games:begin (generated: cargo run -- games --markdown) -->";
pub const TABLE_END: &str = "<!-- games:end -->";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Ids and aliases are unique, lowercase, and never shadow one another.
    #[test]
    fn ids_unique() {
        let mut seen = BTreeSet::new();
        for g in list::GAMES {
            for id in std::iter::once(&g.id).chain(g.aliases) {
                assert!(seen.insert(*id), "{id} twice");
                assert!(
                    id.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                    "{id}"
                );
            }
        }
        assert!(list::GAMES.len() >= 40, "{}", list::GAMES.len());
    }

    /// Every row is complete: a source, a name, ports, notes free of table-breaking `|`.
    #[test]
    fn rows_complete() {
        for g in list::GAMES {
            assert!(!g.name.is_empty() && !g.source.is_empty(), "{}", g.id);
            assert!(g.query_port > 0 && g.game_port > 0, "{}", g.id);
            for s in [g.name, g.notes, g.source] {
                assert!(!s.contains('|') && !s.contains('\n'), "{}: {s}", g.id);
            }
            assert!(!g.also.contains(&g.protocol), "{}", g.id);
        }
    }

    /// The table is sorted by name (case-insensitive), as `games` lists it.
    #[test]
    fn sorted_by_name() {
        let names: Vec<String> = list::GAMES.iter().map(|g| g.name.to_lowercase()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    /// Lookup by id and by alias; unknown ids are None.
    #[test]
    fn find() {
        assert_eq!(Game::find("rust").unwrap().name, "Rust");
        assert_eq!(Game::find("cs2").unwrap().id, "counterstrike2");
        assert_eq!(Game::find("samp").unwrap().id, "gtasam");
        assert!(Game::find("nope").is_none());
        assert!(Game::find("Rust").is_none());
    }

    /// A name that is both a protocol id and a game id is the protocol; `game:` selects the
    /// game (by id or alias); a bare game id is the game; `game:` with a protocol id that is no
    /// game's is nothing. `/probe?module=` and `query` both read names this way.
    #[test]
    fn resolve() {
        let ark = Game::find("ase").unwrap();
        assert_eq!(ark.name, "ARK: Survival Evolved");
        assert_eq!(Game::resolve("ase"), Some((Protocol::Ase, None)));
        assert_eq!(Game::resolve("game:ase"), Some((Protocol::A2s, Some(ark))));
        assert_eq!(
            Game::resolve("game:arkse"),
            Some((Protocol::A2s, Some(ark)))
        );
        let valheim = Game::find("valheim").unwrap();
        assert_eq!(
            Game::resolve("valheim"),
            Some((Protocol::A2s, Some(valheim)))
        );
        assert_eq!(Game::resolve("game:a2s"), None);
        assert_eq!(Game::resolve("game:"), None);
        assert_eq!(Game::resolve("protocol:ase"), None);
        // Every id that is both is read as the protocol, and reachable as the game.
        for g in list::GAMES {
            if let Some(p) = Protocol::from_name(g.id) {
                assert_eq!(Game::resolve(g.id), Some((p, None)), "{}", g.id);
                let as_game = Game::resolve(&format!("game:{}", g.id));
                assert_eq!(as_game.and_then(|(_, g)| g).map(|g| g.id), Some(g.id));
            }
        }
    }

    /// Valheim queries game port + 1; a game on its protocol's default port adds no port, so
    /// Minecraft keeps its SRV lookup.
    #[test]
    fn ports() {
        let v = Game::find("valheim").unwrap();
        assert_eq!((v.game_port, v.query_port), (2456, 2457));
        assert_eq!(v.port_for(Protocol::A2s), Some(2457));
        assert_eq!(Game::find("css").unwrap().port_for(Protocol::A2s), None);
        let mc = Game::find("minecraft").unwrap();
        assert_eq!(mc.port_for(Protocol::Minecraft), None);
        assert_eq!(mc.port_for(Protocol::MinecraftQuery), None);
        assert!(mc.speaks(Protocol::MinecraftQuery));
        assert!(!mc.speaks(Protocol::A2s));
    }

    /// The quirks the issue names are in the table.
    #[test]
    fn quirks() {
        assert!(Game::find("rust").unwrap().quirks.counts_in_keywords);
        assert!(!Game::find("conanexiles").unwrap().quirks.players);
        assert!(!Game::find("armareforger").unwrap().quirks.players);
        assert_eq!(Game::find("css").unwrap().quirks, Quirks::NONE);
    }

    /// The listing has a header and one line per game, in table order.
    #[test]
    fn text_listing() {
        let t = text();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), list::GAMES.len() + 1);
        assert!(lines[0].starts_with("ID "), "{}", lines[0]);
        let valheim = lines
            .iter()
            .find(|l| l.starts_with("valheim "))
            .expect("valheim listed");
        assert!(valheim.contains(" a2s "), "{valheim}");
        assert!(valheim.contains(" 2457 "), "{valheim}");
    }

    /// The game table of docs/games.md is the one rendered from the list. To regenerate it
    /// after changing the list: `GSE_BLESS=1 cargo test --lib games::tests::documented_table`.
    #[test]
    fn documented_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/games.md");
        let page = std::fs::read_to_string(path).expect("docs/games.md");
        let begin = page
            .find(TABLE_BEGIN)
            .expect("docs/games.md has the begin marker")
            + TABLE_BEGIN.len();
        let end = page
            .find(TABLE_END)
            .expect("docs/games.md has the end marker");
        let want = format!("\n{}", markdown());
        if std::env::var_os("GSE_BLESS").is_some() {
            let mut new = page[..begin].to_string();
            new.push_str(&want);
            new.push_str(&page[end..]);
            std::fs::write(path, new).expect("write docs/games.md");
            return;
        }
        assert!(
            page[begin..end] == want,
            "the game table of docs/games.md differs from src/games/list.rs; regenerate it with \
             `GSE_BLESS=1 cargo test --lib games::tests::documented_table`"
        );
    }
}
