//! SA:MP / open.mp dialogue against the simulator on 127.0.0.1, with exact values.

use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::net::udp::UdpMux;
use gameserver_exporter::protocol::samp::OpenMp;
use gameserver_exporter::query::{poll, poll_with, Request, Session};
use gameserver_exporter::simulate::samp::{spawn, Misbehaviour, SampConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Player, Reason};
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "Los Santos RP".into(),
        map: "San Andreas".into(),
        game: "Roleplay".into(),
        version: "0.3.7-R2".into(),
        max: 100,
        players: vec![("Carl".into(), 10, 0.0), ("Ryder".into(), -3, 0.0)],
        rules: Vec::new(),
        password: true,
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Samp,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(600);
    req
}

/// `i` alone maps to counts, name, gamemode, password and language; latency is measured.
/// The language is detail: daemon polls (no `detail`) build no extras at all.
#[tokio::test]
async fn info_only() {
    let server = spawn(world(), SampConfig::default()).await.unwrap();
    let s = poll(&request(&server)).await.unwrap();
    assert_eq!(s.name, "Los Santos RP");
    assert!(s.extras.is_empty(), "{:?}", s.extras);
    let mut req = request(&server);
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 100));
    assert_eq!(s.name, "Los Santos RP");
    assert_eq!(s.game.as_deref(), Some("Roleplay"));
    assert_eq!(s.password, Some(true));
    assert_eq!(s.map, None);
    assert_eq!(s.players, None);
    assert_eq!(s.extras.get("language"), Some(&json!("English")));
    assert!(s.latency > Duration::ZERO);
}

/// After a first poll on its own socket, a target's polls run on the shared socket, rules
/// and players included, with the same results.
#[tokio::test]
async fn steady_state_on_shared_socket() {
    let server = spawn(world(), SampConfig::default()).await.unwrap();
    let mux = Arc::new(UdpMux::new());
    let mut req = request(&server);
    req.rules = true;
    req.players = true;
    req.mux = Some(mux.clone());
    let mut session = Session::default();
    let first = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(mux.shared_polls(), 0);
    let second = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(mux.shared_polls(), 1);
    assert_eq!(second.name, "Los Santos RP");
    assert_eq!(second.players, first.players);
    assert_eq!(second.rules, first.rules);
    assert!(second.players.is_some_and(|p| !p.is_empty()));
}

/// With rules and players: map and version from the rules, `d` gives ids and pings; classic
/// SA:MP ignores `o`, so it is not open.mp, and the ping echo checks out.
#[tokio::test]
async fn classic_rules_players_detail() {
    let server = spawn(world(), SampConfig::default()).await.unwrap();
    let mut req = request(&server);
    req.rules = true;
    req.players = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.map.as_deref(), Some("San Andreas"));
    assert_eq!(s.version.as_deref(), Some("0.3.7-R2"));
    assert_eq!(s.extras.get("weburl"), Some(&json!("www.open.mp")));
    assert_eq!(s.extras.get("open_mp"), Some(&json!(false)));
    assert_eq!(s.extras.get("ping_echo"), Some(&json!(true)));
    assert_eq!(s.rules.as_ref().map(|r| r.len()), Some(6));
    assert_eq!(
        s.players,
        Some(vec![
            Player {
                name: "Carl".into(),
                id: Some("0".into()),
                score: Some(10),
                ping: Some(20),
                ..Player::default()
            },
            Player {
                name: "Ryder".into(),
                id: Some("1".into()),
                score: Some(-3),
                ping: Some(25),
                ..Player::default()
            },
        ])
    );
}

/// Windows-1251 server and player names decode correctly when the target says so.
#[tokio::test]
async fn windows_1251_names() {
    let w = world();
    w.update(|w| {
        w.name = "Русский сервер".into();
        w.players = vec![("Иван_Петров".into(), 7, 0.0)];
    });
    let config = SampConfig {
        encoding: encoding_rs::WINDOWS_1251,
        language: "Русский".into(),
        ..SampConfig::default()
    };
    let server = spawn(w, config).await.unwrap();
    let mut req = request(&server);
    req.encoding = encoding_rs::WINDOWS_1251;
    req.players = true;
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.name, "Русский сервер");
    assert_eq!(s.extras.get("language"), Some(&json!("Русский")));
    assert_eq!(s.players.unwrap()[0].name, "Иван_Петров");
    // Read with the default page the same bytes still decode, to other letters.
    req.encoding = encoding_rs::WINDOWS_1252;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.name, "Ðóññêèé ñåðâåð");
}

/// open.mp answers `o` (detected, URLs in extras) and has no `d`: players come from `c`.
#[tokio::test]
async fn open_mp_detected_and_c_used() {
    let config = SampConfig {
        open_mp: true,
        open_mp_info: OpenMp {
            discord: "discord.gg/lsrp".into(),
            logo: "https://lsrp.example/logo.png".into(),
            ..OpenMp::default()
        },
        ..SampConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.detail = true;
    req.players = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.extras.get("open_mp"), Some(&json!(true)));
    assert_eq!(s.extras.get("discord"), Some(&json!("discord.gg/lsrp")));
    assert_eq!(
        s.extras.get("logo_url"),
        Some(&json!("https://lsrp.example/logo.png"))
    );
    assert_eq!(s.extras.get("light_banner_url"), None);
    assert_eq!(s.extras.get("ping_echo"), Some(&json!(true)));
    let players = s.players.unwrap();
    assert_eq!(players.len(), 2);
    assert_eq!(
        (players[1].name.as_str(), players[1].score, players[1].ping),
        ("Ryder", Some(-3), None)
    );
}

/// A server that ignores `d` (and does not answer `o`) still gets its list through `c`.
#[tokio::test]
async fn d_falls_back_to_c() {
    // open.mp mode ignores `d`; without `detail` the dialogue does not know it is open.mp.
    let config = SampConfig {
        open_mp: true,
        ..SampConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.players = true;
    let s = poll(&req).await.unwrap();
    let names: Vec<_> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score, p.id))
        .collect();
    assert_eq!(
        names,
        vec![
            ("Carl".into(), Some(10), None),
            ("Ryder".into(), Some(-3), None)
        ]
    );
}

/// Above 100 players there is no list: players None with a note, the poll still up.
#[tokio::test]
async fn over_100_players_no_list() {
    let w = world();
    w.update(|w| {
        w.max = 200;
        w.players = (0..150).map(|i| (format!("p{i}"), 0, 0.0)).collect();
    });
    let server = spawn(w, SampConfig::default()).await.unwrap();
    let mut req = request(&server);
    req.players = true;
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (150, 200));
    assert_eq!(s.players, None);
    assert_eq!(
        s.extras.get("players_note"),
        Some(&json!("the server sends no player list above 100 players"))
    );
}

/// A server silent on `c` and `d`: players None with a note, the poll still up.
#[tokio::test]
async fn silent_player_list() {
    let config = SampConfig {
        silent_players: true,
        ..SampConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.players = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.online, 2);
    assert_eq!(s.players, None);
    assert_eq!(
        s.extras.get("players_note"),
        Some(&json!("the player list was not answered"))
    );
}

/// Replies echoing another header are ignored; only those arriving means `mismatch`.
#[tokio::test]
async fn wrong_header_is_mismatch() {
    let config = SampConfig {
        misbehaviour: Misbehaviour::WrongHeader,
        ..SampConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let err = poll(&request(&server)).await.unwrap_err();
    assert_eq!(err.reason, Reason::Mismatch, "{err}");
}

/// Junk before every reply is skipped and the poll succeeds.
#[tokio::test]
async fn junk_flood_skipped() {
    let config = SampConfig {
        misbehaviour: Misbehaviour::JunkFlood,
        ..SampConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.rules = true;
    req.players = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.name, "Los Santos RP");
    assert_eq!(s.players.map(|p| p.len()), Some(2));
}

/// A truncated `i` or one whose length runs past the datagram is malformed.
#[tokio::test]
async fn broken_info_is_malformed() {
    for m in [Misbehaviour::Truncated, Misbehaviour::LengthBeyondDatagram] {
        let config = SampConfig {
            misbehaviour: m,
            ..SampConfig::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let err = poll(&request(&server)).await.unwrap_err();
        assert_eq!(err.reason, Reason::Malformed, "{m:?}: {err}");
    }
}

/// A closed port is `refused`, well within the timeout.
#[tokio::test]
async fn closed_port_refused() {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = socket.local_addr().unwrap();
    drop(socket);
    let mut req = Request::new(Protocol::Samp, Address::parse(&addr.to_string()).unwrap());
    req.timeout = Duration::from_secs(2);
    let err = poll(&req).await.unwrap_err();
    // Refused, not Timeout: the ICMP error ended the poll before its 2 s timeout, which
    // is what a wall-clock bound here would have tried to show.
    assert_eq!(err.reason, Reason::Refused, "{err}");
}

/// A silent server is a `timeout`.
#[tokio::test]
async fn silence_is_timeout() {
    let config = SampConfig {
        misbehaviour: Misbehaviour::Silence,
        ..SampConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.timeout = Duration::from_millis(300);
    let err = poll(&req).await.unwrap_err();
    assert_eq!(err.reason, Reason::Timeout);
}

/// An IPv6 target is refused with a clear message: the request header needs an IPv4 address.
#[tokio::test]
async fn ipv6_target_rejected() {
    let mut req = Request::new(Protocol::Samp, Address::parse("[::1]:7777").unwrap());
    req.timeout = Duration::from_millis(300);
    let err = poll(&req).await.unwrap_err();
    assert_eq!(err.reason, Reason::Dns);
    assert!(err.detail.contains("IPv4"), "{}", err.detail);
}
