//! A server's strings on every surface that publishes them. The daemon polls two targets whose
//! name, map, game, player name and rule value carry direction overrides and isolates
//! (U+202E, U+2066), a CR and a tab: an A2S simulator on 127.0.0.1:0 (the whole path from the
//! wire), and a scripted status that also carries a NUL (A2S strings end at a NUL on the
//! wire, so only a status built in memory can bring one to the daemon). `/metrics`, `/probe`
//! (plain and debug), `/health`, `/api/v1/targets` and the status page must show none of
//! those characters, yet every visible character around them.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober, QueryProber};
use gameserver_exporter::simulate::{self, World, WorldState};
use gameserver_exporter::status::{Player, Status};
use serde_json::Value;

use crate::support::daemon as harness;
use crate::support::expo;
use crate::support::http;
use harness::target;

/// Every character here must be dropped wherever a server string is published.
const FORBIDDEN: [char; 5] = ['\u{202e}', '\u{2066}', '\0', '\r', '\t'];

/// `visible` with one of each of `bad` woven in after its first characters.
fn tainted(visible: &str, bad: &[char]) -> String {
    let mut chars = visible.chars();
    let mut out = String::new();
    for &c in bad {
        out.extend(chars.next());
        out.push(c);
    }
    out.extend(chars);
    out
}

/// What the A2S wire can carry: everything but the NUL that ends its strings.
fn on_the_wire(visible: &str) -> String {
    tainted(visible, &['\u{202e}', '\u{2066}', '\r', '\t'])
}

const NAME: &str = "Evil Server cba.moc";
const MAP: &str = "de_dust2 ünd mehr";
const GAME: &str = "Counter-Strike §2";
const PLAYER: &str = "alice the great";
const RULE: &str = "visit example.org";
/// The scripted target's address: answered by [`Scripted`], never sent a datagram.
const SCRIPTED: &str = "10.0.0.1:1";

/// Polls through the real dialogue, except [`SCRIPTED`], which gets a status holding every
/// forbidden character.
struct Scripted;

impl Prober for Scripted {
    fn poll<'a>(&'a self, req: &'a Request, session: &'a mut Session) -> PollFuture<'a> {
        if req.address.to_string() != SCRIPTED {
            return QueryProber.poll(req, session);
        }
        let status = Status {
            online: 1,
            max: 10,
            name: tainted(NAME, &FORBIDDEN),
            map: Some(tainted(MAP, &FORBIDDEN)),
            game: Some(tainted(GAME, &FORBIDDEN)),
            latency: Duration::from_millis(5),
            players: Some(vec![Player {
                name: tainted(PLAYER, &FORBIDDEN),
                ..Player::default()
            }]),
            rules: Some(vec![("sv_contact".into(), tainted(RULE, &FORBIDDEN))]),
            ..Status::default()
        };
        Box::pin(async move { Ok(status) })
    }
}

async fn get(addr: SocketAddr, path: &str) -> http::Reply {
    http::plain(addr, "GET", path, "")
        .await
        .expect("an HTTP reply")
}

fn assert_clean(surface: &str, body: &str) {
    for bad in FORBIDDEN {
        assert!(!body.contains(bad), "{surface} holds {bad:?}:\n{body}");
    }
}

/// Each target's `gameserver_info`, player and rule labels are exactly the visible text.
fn assert_labels(surface: &str, body: &str, targets: &[&str]) {
    let samples = expo::parse(body.as_bytes(), expo::Format::Text)
        .unwrap_or_else(|e| panic!("{surface}: {e}\n{body}"));
    for t in targets {
        let one = |family: &str, label: &str| {
            let found: Vec<_> = samples
                .iter()
                .filter(|s| s.name == family && s.label("target") == Some(t))
                .collect();
            assert_eq!(found.len(), 1, "{surface}: {family} of {t}\n{body}");
            found[0].label(label).map(str::to_string)
        };
        assert_eq!(
            one("gameserver_info", "name").as_deref(),
            Some(NAME),
            "{surface} {t}"
        );
        assert_eq!(
            one("gameserver_info", "map").as_deref(),
            Some(MAP),
            "{surface} {t}"
        );
        assert_eq!(
            one("gameserver_info", "game").as_deref(),
            Some(GAME),
            "{surface} {t}"
        );
        assert_eq!(
            one("gameserver_player_info", "player").as_deref(),
            Some(PLAYER),
            "{surface} {t}"
        );
        assert_eq!(
            one("gameserver_rule_info", "value").as_deref(),
            Some(RULE),
            "{surface} {t}"
        );
    }
}

#[tokio::test]
async fn server_strings_lose_hidden_characters_everywhere() {
    let world = WorldState {
        name: on_the_wire(NAME),
        map: on_the_wire(MAP),
        game: on_the_wire(GAME),
        max: 10,
        players: vec![(on_the_wire(PLAYER), 5, 10.0)],
        rules: vec![("sv_contact".into(), on_the_wire(RULE))],
        ..WorldState::default()
    };
    let a2s = simulate::a2s::spawn(World::new(world), Default::default())
        .await
        .unwrap();
    let detail = "players = true\nrules = [\"sv_contact\"]\n";
    let text = format!(
        "[exporter]\ninterval = \"500ms\"\ntimeout = \"400ms\"\n{}{}",
        target("a2s", "a2s", &a2s.addr.to_string(), detail),
        target("scripted", "a2s", SCRIPTED, detail),
    );
    let d = harness::start(&text, Arc::new(Scripted)).await;
    harness::wait_for(
        d.addr,
        &[
            "gameserver_up{target=\"a2s\",protocol=\"a2s\"} 1",
            "gameserver_up{target=\"scripted\",protocol=\"a2s\"} 1",
        ],
    )
    .await;
    let metrics = get(d.addr, "/metrics").await;
    assert_eq!(metrics.status, 200);
    assert_clean("/metrics", metrics.text());
    assert_labels("/metrics", metrics.text(), &["a2s", "scripted"]);

    for t in ["a2s", "scripted"] {
        let probe = get(d.addr, &format!("/probe?target={t}")).await;
        assert_eq!(probe.status, 200);
        assert_clean("/probe", probe.text());
        assert_labels("/probe", probe.text(), &[t]);

        let debug = get(d.addr, &format!("/probe?target={t}&debug=true")).await;
        assert_eq!(debug.status, 200);
        assert_clean("/probe debug", debug.text());

        let health = get(d.addr, &format!("/health?target={t}")).await;
        assert_eq!(health.status, 200, "{}", health.text());
        assert_clean("/health", health.text());
    }

    let api = get(d.addr, "/api/v1/targets").await;
    assert_eq!(api.status, 200);
    assert_clean("/api/v1/targets", api.text());
    let v: Value = serde_json::from_slice(&api.body).unwrap();
    let targets = v["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2);
    for t in targets {
        assert_eq!(t["server_name"], NAME, "{t}");
        assert_eq!(t["map"], MAP, "{t}");
        assert_eq!(t["server_game"], GAME, "{t}");
    }

    let page = get(d.addr, "/").await;
    assert_eq!(page.status, 200);
    assert_clean("status page", page.text());
    let row = format!("<td>{NAME}</td><td>{MAP}</td>");
    assert_eq!(page.text().matches(&row).count(), 2, "{}", page.text());

    d.stop().await;
}
