//! Game presets on the command line: `games` lists them, `query GAME ADDRESS` polls with the
//! game's protocol and skips what the game never answers.

use std::process::Command;

use gameserver_exporter::games::list::GAMES;
use gameserver_exporter::simulate::{self, World, WorldState};

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `games` prints a header and one line per preset; `--markdown` prints the table of
/// docs/games.md.
#[test]
fn games_lists_every_preset() {
    let out = exe().arg("games").output().unwrap();
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert_eq!(t.lines().count(), GAMES.len() + 1);
    let valheim: Vec<&str> = t
        .lines()
        .find(|l| l.starts_with("valheim "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(valheim[..3], ["valheim", "Valheim", "a2s"]);
    assert_eq!(valheim[3], "2457");
    let out = exe().args(["games", "--markdown"]).output().unwrap();
    assert_eq!(text(&out.stdout), gameserver_exporter::games::markdown());
}

/// `query GAME` polls with the preset's protocol; a player list the game never sends is not
/// asked for, and a note says so.
#[test]
fn query_by_game() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let world = WorldState {
        name: "Preset Test".into(),
        max: 10,
        players: vec![("alice".into(), 5, 10.0)],
        ..WorldState::default()
    };
    let server = rt
        .block_on(simulate::a2s::spawn(World::new(world), Default::default()))
        .unwrap();
    let addr = server.addr.to_string();

    let out = exe()
        .args(["query", "css", &addr, "--players", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "Preset Test");
    assert_eq!(v["players"][0]["name"], "alice");
    assert_eq!(text(&out.stderr), "");

    let out = exe()
        .args(["query", "conanexiles", &addr, "--players", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "Preset Test");
    assert!(v["players"].is_null(), "{v}");
    assert_eq!(
        text(&out.stderr),
        "note: Conan Exiles never answers the player query; not sent\n"
    );
    drop(server);
}

/// One game of gamedig's list, as tests/fixtures/gamedig-games.tsv has it.
struct Gamedig {
    id: String,
    protocol: String,
    query_port: Option<u16>,
    old_id: String,
}

/// tests/fixtures/gamedig-games.tsv: gamedig 5.3.3's games list (see its header).
fn gamedig_games() -> Vec<Gamedig> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gamedig-games.tsv"
    ))
    .unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("id\tname\tprotocol\tquery_port\tgame_port\told_id")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "{l}");
            Gamedig {
                id: f[0].to_string(),
                protocol: f[2].to_string(),
                query_port: f[3].parse().ok(),
                old_id: f[5].to_string(),
            }
        })
        .collect()
}

/// The ids of docs/games.md's "gamedig ids without a preset" table, with their gamedig
/// protocol column.
fn documented_without_preset() -> Vec<(String, String)> {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/games.md")).unwrap();
    let begin = page.find("<!-- no-preset:begin -->").expect("begin marker");
    let end = page.find("<!-- no-preset:end -->").expect("end marker");
    page[begin..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            assert!(cells.len() >= 4, "{l}");
            let why = cells[3].trim_end_matches(" |");
            assert!(
                why.contains("not yet supported") || why.contains("vendor"),
                "{l}: say which protocol is missing or which vendor service it needs"
            );
            (
                cells[0].trim_end_matches('`').to_string(),
                cells[2].to_string(),
            )
        })
        .collect()
}

/// Every gamedig id is a preset (its id or an alias), or a row of docs/games.md saying why
/// not: never both, never neither; gamedig's former ids resolve to the same preset. No
/// documented row names an id gamedig does not have.
#[test]
fn every_gamedig_id_is_a_preset_or_documented() {
    use gameserver_exporter::games::Game;
    use std::collections::BTreeMap;
    let games = gamedig_games();
    assert_eq!(games.len(), 358, "gamedig 5.3.3 lists 358 games");
    let without: BTreeMap<String, String> = documented_without_preset().into_iter().collect();
    let mut presets = 0;
    for g in &games {
        match (Game::find(&g.id), without.get(&g.id)) {
            (Some(p), None) => {
                presets += 1;
                if !g.old_id.is_empty() {
                    assert_eq!(Game::find(&g.old_id).map(|o| o.id), Some(p.id), "{}", g.id);
                }
            }
            (None, Some(protocol)) => assert_eq!(*protocol, g.protocol, "{}", g.id),
            (Some(p), Some(_)) => panic!(
                "{} is preset {} and documented as without one: drop its docs/games.md row",
                g.id, p.id
            ),
            (None, None) => panic!(
                "gamedig id {} ({}) is neither a preset nor documented in docs/games.md",
                g.id, g.protocol
            ),
        }
    }
    for id in without.keys() {
        assert!(
            games.iter().any(|g| &g.id == id),
            "{id} is not a gamedig id"
        );
    }
    assert_eq!(presets + without.len(), games.len());
    assert!(presets >= 302, "{presets}");
    assert!(GAMES.len() >= 302, "{}", GAMES.len());
}

/// A preset that polls another port than gamedig's says why in its notes.
#[test]
fn ports_other_than_gamedigs_are_explained() {
    use gameserver_exporter::games::Game;
    for g in gamedig_games() {
        let (Some(p), Some(port)) = (Game::find(&g.id), g.query_port) else {
            continue;
        };
        assert!(
            p.query_port == port || p.notes.contains("gamedig"),
            "{}: polls {} where gamedig polls {port}, and its notes do not say why",
            g.id,
            p.query_port
        );
    }
}

/// A target per preset id and per alias (`game = ...`, no port): `check-config` accepts the
/// file and counts every one, and the loaded targets poll the preset's protocol on its query
/// port.
#[test]
fn every_preset_round_trips_check_config() {
    use std::fmt::Write;
    let ids: Vec<&str> = GAMES
        .iter()
        .flat_map(|g| std::iter::once(g.id).chain(g.aliases.iter().copied()))
        .collect();
    let mut toml = String::from("[exporter]\n");
    for id in &ids {
        let _ = write!(
            toml,
            "[[target]]\nname = \"{id}\"\ngame = \"{id}\"\naddress = \"127.0.0.1\"\n"
        );
    }
    let path = std::env::temp_dir().join(format!("gse-games-{}.toml", std::process::id()));
    std::fs::write(&path, &toml).unwrap();
    let out = exe().arg("check-config").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout),
        format!("{}: OK ({} targets)\n", path.display(), ids.len())
    );
    let _ = std::fs::remove_file(&path);

    let config = gameserver_exporter::config::parse("presets.toml", &toml).unwrap();
    assert_eq!(config.targets.len(), ids.len());
    for t in &config.targets {
        let g = gameserver_exporter::games::Game::find(&t.name).unwrap();
        assert_eq!(t.game, Some(g.id), "{}", t.name);
        assert_eq!(t.protocol, g.protocol, "{}", t.name);
        let port = t.address.port.unwrap_or(t.protocol.default_port());
        assert_eq!(port, g.query_port, "{}", t.name);
    }
}

/// `/probe?module=<id>` resolves for every preset id and alias: to the preset (its protocol,
/// its query port), or, where the id is also a protocol's id, to that protocol.
#[test]
fn every_preset_is_a_probe_module() {
    use gameserver_exporter::target::Protocol;
    let config = gameserver_exporter::config::parse("probe.toml", "[exporter]\n").unwrap();
    for g in GAMES {
        for id in std::iter::once(g.id).chain(g.aliases.iter().copied()) {
            let m = config
                .probe_module(id)
                .unwrap_or_else(|| panic!("module={id}"));
            match Protocol::from_name(id) {
                Some(p) => assert_eq!(m.protocol, p, "{id}"),
                None => {
                    assert_eq!(m.protocol, g.protocol, "{id}");
                    assert_eq!(m.game.map(|x| x.id), Some(g.id), "{id}");
                }
            }
        }
    }
}
