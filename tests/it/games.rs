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
