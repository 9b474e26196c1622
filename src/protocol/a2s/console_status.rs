//! A Source console's `status`, text -> [`ConsoleStatus`]: what a health query reads where
//! `stats` is missing or empty (CS2's console has no `stats` table). Pure functions.
//!
//! Two layouts, from replies other projects captured from real servers:
//! - CS2 (Source 2): `key : value` lines (`players  : 2 humans, 1 bots (10 max) (not
//!   hibernating) (unreserved)`), the map in the first `loaded spawngroup(  1)  : SV:  [1:
//!   de_dust2 | main lump | mapload]` line, then `---------players--------`, a header
//!   `id time ping loss state rate adr name` and one row per client ending in its name in
//!   single quotes (`    2    04:10   44    0     active 786432 1.2.3.4:27005 'Name'`; bots:
//!   `    3      BOT    0    0     active      0 'Name'`; a client still connecting:
//!   `65535 [NoChan] ... ''`), and `#end`;
//! - CS:GO and the Orange Box games: `map     : de_dust2`, `players : 2 humans, 1 bots (16/0
//!   max)`, rows `# 2 3 "Name" STEAM_1:0:1 04:10 44 0 active 786432 1.2.3.4:27005` and bots
//!   `#103 "Name" BOT active 64`.
//!
//! Neither prints the server's frame rate (CS2's SourceTV block prints the relay's, not the
//! game server's): `status` gives the split of humans and bots, the map and the names.

/// What `status` says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsoleStatus {
    pub humans: Option<u32>,
    pub bots: Option<u32>,
    /// The capacity in the `players` line; CS2 prints 0 when `sv_visiblemaxplayers` is unset.
    pub max: Option<u32>,
    pub map: Option<String>,
    /// Every named client, bots included (A2S lists them too), in the console's order.
    pub names: Vec<String>,
}

/// The most rows read: past this the reply is not a game server's status.
pub const MAX_ROWS: usize = 4096;

/// The `status` reply read; `None` when it has no `players :` line (not a status reply:
/// `Unknown command`, an empty reply).
pub fn parse_status(text: &str) -> Option<ConsoleStatus> {
    let mut out = ConsoleStatus::default();
    let mut seen_players_line = false;
    let mut in_rows = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed == "#end" {
            in_rows = false;
            continue;
        }
        // Rows hold colons too (times, addresses): no `key : value` among them.
        if let Some((key, value)) = key_value(trimmed).filter(|_| !in_rows) {
            match key {
                "players" => {
                    seen_players_line = true;
                    read_counts(value, &mut out);
                }
                "map" => out.map = word(value),
                _ if key.starts_with("loaded spawngroup(") && out.map.is_none() => {
                    out.map = spawngroup_map(value)
                }
                _ => {}
            }
            continue;
        }
        if trimmed.starts_with("---------players") {
            in_rows = true;
            continue;
        }
        if trimmed.starts_with("---") {
            in_rows = false;
            continue;
        }
        if out.names.len() >= MAX_ROWS {
            continue;
        }
        // CS:GO rows start with `#` (its header `# userid name ...` has no quotes).
        let name = if let Some(row) = trimmed.strip_prefix('#') {
            quoted(row, '"')
        } else if in_rows {
            quoted(trimmed, '\'')
        } else {
            None
        };
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            out.names.push(name.to_string());
        }
    }
    seen_players_line.then_some(out)
}

/// `key : value`, the key one or two words (`loaded spawngroup(  1)` has spaces).
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim();
    let short = key.len() <= 32 && !key.contains('\'') && !key.contains('"');
    (short && !key.is_empty() && !key.starts_with('#')).then(|| (key, value.trim()))
}

fn word(value: &str) -> Option<String> {
    value.split_whitespace().next().map(str::to_string)
}

/// `SV:  [1: de_dust2 | main lump | mapload]` -> `de_dust2`.
fn spawngroup_map(value: &str) -> Option<String> {
    let inner = value.split_once('[')?.1;
    let name = inner.split_once(':')?.1.split('|').next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// `2 humans, 1 bots (10 max)` or `(16/0 max)`.
fn read_counts(value: &str, out: &mut ConsoleStatus) {
    let words: Vec<&str> = value.split_whitespace().collect();
    let number = |w: &str| {
        w.trim_matches(|c: char| !c.is_ascii_digit())
            .parse::<u32>()
            .ok()
    };
    for pair in words.windows(2) {
        let label = pair[1].trim_end_matches([',', ')']);
        match label {
            "humans" | "human" => out.humans = number(pair[0]),
            "bots" | "bot" => out.bots = number(pair[0]),
            "max" => {
                let first = pair[0].trim_start_matches('(');
                out.max = number(first.split('/').next().unwrap_or(first));
            }
            _ => {}
        }
    }
}

/// The text between the first and the last `quote` on the line.
fn quoted(line: &str, quote: char) -> Option<&str> {
    let start = line.find(quote)? + quote.len_utf8();
    let end = line.rfind(quote)?;
    (end >= start).then(|| &line[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CS2 (build 1.39/1.41 as other projects captured it): counts, the map from the first
    /// spawngroup, names of humans and bots, the connecting client skipped.
    #[test]
    fn cs2_status() {
        let text = "Server:  Running [0.0.0.0:27015]\n\
            Client:  Disconnected\n\
            ----- Status -----\n\
            @ Current  :  game\n\
            source   : console\n\
            hostname : Counter-Strike 2 Dedicated Server\n\
            spawngroup count : 1\n\
            version  : 1.41.7.5/14175 10847 secure  public\n\
            udp/ip   : 0.0.0.0:27015 (public 203.0.113.9:27015)\n\
            os/type  : Linux dedicated\n\
            players  : 1 humans, 1 bots (10 max) (not hibernating) (unreserved)\n\
            ---------spawngroups----\n\
            loaded spawngroup(  1)  : SV:  [1: de_train | main lump | mapload]\n\
            loaded spawngroup(  2)  : SV:  [2: prefabs/misc/team_select | main lump | mapload | point_prefab]\n\
            ---------players--------\n  \
              id     time ping loss      state   rate adr name\n\
            65535 [NoChan]    0    0 challenging      0unknown ''\n    \
                2  1:24:03   18    0     active 196608 192.0.2.5:57743 'Numeric 123'\n    \
                3      BOT    0    0     active      0 'Gabe'\n\
            #end\n";
        let s = parse_status(text).unwrap();
        assert_eq!((s.humans, s.bots, s.max), (Some(1), Some(1), Some(10)));
        assert_eq!(s.map.as_deref(), Some("de_train"));
        assert_eq!(s.names, ["Numeric 123", "Gabe"]);
    }

    /// CS:GO's layout: `map :`, `(16/0 max)`, `#` rows with double quotes, bots without a
    /// Steam id.
    #[test]
    fn csgo_status() {
        let text = "hostname: Valve CS:GO Server\n\
            version : 1.38.2.2 secure\n\
            map     : de_dust2\n\
            players : 2 humans, 1 bots (16/0 max) (not hibernating)\n\
            \n\
            # userid name uniqueid connected ping loss state rate adr\n\
            # 2 1 \"Alice \\\"A\\\"\" STEAM_1:0:1 04:23 45 0 active 786432 192.0.2.1:27005\n\
            # 3 2 \"bob\" STEAM_1:0:2 00:10 30 0 active 786432 192.0.2.2:27005\n\
            #103 \"Jeff\" BOT active 64\n\
            #end\n";
        let s = parse_status(text).unwrap();
        assert_eq!((s.humans, s.bots, s.max), (Some(2), Some(1), Some(16)));
        assert_eq!(s.map.as_deref(), Some("de_dust2"));
        assert_eq!(s.names, ["Alice \\\"A\\\"", "bob", "Jeff"]);
    }

    /// Not a status reply: nothing.
    #[test]
    fn not_status() {
        assert_eq!(parse_status(""), None);
        assert_eq!(parse_status("Unknown command \"status\"\n"), None);
        let bare = parse_status("players : many\n").unwrap();
        assert_eq!((bare.humans, bare.bots, bare.max), (None, None, None));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,200}") {
            let _ = parse_status(&s);
            let _ = parse_status(&format!("players : {s}\n---------players--------\n{s}"));
        }
    }
}
