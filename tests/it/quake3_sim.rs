//! Quake 3 dialogue against the simulator on 127.0.0.1, through the exporter's own poll
//! (registry entry, driver, resends paced by the protocol's minimum gap).

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::quake3::{encode_request, Command, MAX_PLAYERS};
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::quake3::{
    spawn, Flavour, Misbehaviour, Quake3Config, DARKPLACES_FLOOD_GAP, HUGE_LIST,
};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use serde_json::json;
use tokio::net::UdpSocket;

fn world() -> World {
    World::new(WorldState {
        name: "^1Rail ^7Arena".into(),
        map: "q3dm17".into(),
        game: "baseq3".into(),
        version: "ioq3 1.36".into(),
        max: 16,
        bots: 2,
        players: vec![("^4Sarge".into(), 12, 0.0), ("Grunt".into(), -2, 0.0)],
        rules: vec![("fraglimit".into(), "20".into())],
        password: false,
    })
}

fn request(server: &SimServer, timeout: Duration) -> Request {
    let mut req = Request::new(
        Protocol::Quake3,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = timeout;
    req
}

fn full(server: &SimServer) -> Request {
    let mut req = request(server, Duration::from_secs(2));
    req.players = true;
    req.rules = true;
    req.detail = true;
    req
}

/// ioquake3 shape: every field from the world, colours stripped, bots by their zero ping,
/// the rules in order without our challenge; a daemon poll (no detail) builds no extras.
#[tokio::test]
async fn ioquake3_status() {
    let config = Quake3Config {
        private_slots: 4,
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let s = poll(&full(&server)).await.unwrap();
    assert_eq!(s.name, "Rail Arena");
    // 16 public slots (the world's max) + 4 private ones on the wire: max is the public 16.
    assert_eq!((s.online, s.max, s.bots), (4, 16, Some(2)));
    assert_eq!(s.map.as_deref(), Some("q3dm17"));
    assert_eq!(s.game.as_deref(), Some("baseq3"));
    assert_eq!(s.version.as_deref(), Some("ioq3 1.36"));
    assert_eq!(s.password, Some(false));
    assert!(s.latency > Duration::ZERO);
    let players = s.players.unwrap();
    assert_eq!(players[0].name, "Sarge");
    assert_eq!((players[0].score, players[0].ping), (Some(12), Some(20)));
    assert_eq!(players[3].name, "Bot1");
    let rules = s.rules.unwrap();
    assert_eq!(rules[0], ("sv_hostname".into(), "Rail Arena".into()));
    assert!(rules.iter().all(|(k, _)| k != "challenge"));
    assert!(rules.contains(&("fraglimit".into(), "20".into())));
    assert_eq!(s.extras.get("private_slots"), Some(&json!(4)));
    assert_eq!(s.extras.get("bots_from"), Some(&json!("zero_ping")));
    // One request per poll: getstatus only.
    assert_eq!((counters.status(), counters.info()), (1, 0));

    let s = poll(&request(&server, Duration::from_secs(2)))
        .await
        .unwrap();
    assert_eq!((s.online, s.max, s.bots), (4, 16, Some(2)));
    assert_eq!((s.players, s.rules), (None, None));
    assert!(s.extras.is_empty(), "{:?}", s.extras);
}

/// DarkPlaces shape: `hostname`, the server's own bot count.
#[tokio::test]
async fn darkplaces_status() {
    let config = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(DARKPLACES_FLOOD_GAP),
        ..Quake3Config::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let s = poll(&full(&server)).await.unwrap();
    assert_eq!(s.name, "Rail Arena");
    assert_eq!((s.online, s.max, s.bots), (4, 16, Some(2)));
    assert_eq!(s.game.as_deref(), Some("baseq3"));
    assert_eq!(s.extras.get("bots_from"), Some(&json!("bots")));
}

/// The flood-protected server drops a naive second request sent 10 ms after the first.
#[tokio::test]
async fn flood_protection_drops_fast_repeats() {
    let config = Quake3Config {
        flood_gap: Some(DARKPLACES_FLOOD_GAP),
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut req = Vec::new();
    encode_request(Command::Status, "a", &mut req);
    sock.send_to(&req, server.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(10)).await;
    sock.send_to(&req, server.addr).await.unwrap();
    let mut buf = vec![0u8; 65536];
    let first = tokio::time::timeout(Duration::from_millis(500), sock.recv_from(&mut buf)).await;
    assert!(first.is_ok());
    let second = tokio::time::timeout(Duration::from_millis(500), sock.recv_from(&mut buf)).await;
    assert!(second.is_err(), "the repeat was answered");
    assert_eq!((counters.status(), counters.flooded()), (2, 1));
}

/// Polled every 1.2 s (an interval just above DarkPlaces' 1 s block), the flood-protected
/// server never drops a request and no poll fails.
#[tokio::test]
async fn flood_protected_polled_every_interval() {
    let config = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(DARKPLACES_FLOOD_GAP),
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let req = request(&server, Duration::from_secs(1));
    let mut tick = tokio::time::interval(Duration::from_millis(1200));
    for round in 0..5 {
        tick.tick().await;
        let s = poll(&req)
            .await
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(s.online, 4, "round {round}");
    }
    assert_eq!(counters.flooded(), 0);
    assert_eq!(counters.status(), 5);
}

/// Lossy and flood-protected: the first reply is lost; the driver's resend waits out the
/// protocol's minimum gap (a sooner one would be dropped) and is answered.
#[tokio::test]
async fn lossy_flood_protected_answers_after_resend() {
    let config = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(DARKPLACES_FLOOD_GAP),
        lossy: true,
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let start = Instant::now();
    let s = poll(&request(&server, Duration::from_secs(3)))
        .await
        .unwrap();
    assert_eq!(s.online, 4);
    assert!(start.elapsed() >= DARKPLACES_FLOOD_GAP);
    assert_eq!(counters.status(), 2);
    assert_eq!((counters.lost(), counters.flooded()), (1, 0));
}

async fn failing(m: Misbehaviour, flavour: Flavour) -> Reason {
    let config = Quake3Config {
        flavour,
        misbehaviour: m,
        ..Quake3Config::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let err = poll(&request(&server, Duration::from_millis(800)))
        .await
        .unwrap_err();
    err.reason
}

/// Each misbehaviour fails with its reason, in both shapes: silence `timeout`, another
/// challenge `mismatch`, a cut reply `malformed`, more lines than slots `too_large`.
#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    for flavour in [Flavour::Ioquake3, Flavour::DarkPlaces] {
        for (m, reason) in [
            (Misbehaviour::Silence, Reason::Timeout),
            (Misbehaviour::WrongChallenge, Reason::Mismatch),
            (Misbehaviour::Truncated, Reason::Malformed),
            (Misbehaviour::LyingCounts, Reason::TooLarge),
        ] {
            assert_eq!(failing(m, flavour).await, reason, "{flavour:?} {m:?}");
        }
    }
}

/// 10,000 player lines: all counted, only the cap stored.
#[tokio::test]
async fn huge_player_list_is_capped() {
    let config = Quake3Config {
        misbehaviour: Misbehaviour::HugePlayerList,
        ..Quake3Config::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let s = poll(&full(&server)).await.unwrap();
    assert_eq!(s.online, HUGE_LIST as u32);
    assert_eq!(s.players.map(|p| p.len()), Some(MAX_PLAYERS));
    assert_eq!(
        s.extras.get("players_not_listed"),
        Some(&json!(HUGE_LIST - MAX_PLAYERS))
    );
}

/// Colour soup: every string comes out as the world's text, in both shapes.
#[tokio::test]
async fn colour_soup_is_stripped() {
    for flavour in [Flavour::Ioquake3, Flavour::DarkPlaces] {
        let config = Quake3Config {
            flavour,
            misbehaviour: Misbehaviour::ColourSoup,
            ..Quake3Config::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let s = poll(&full(&server)).await.unwrap();
        // The soup's "^^" is a literal caret in DarkPlaces' reading.
        assert_eq!(s.name, "Rail Arena^", "{flavour:?}");
        assert_eq!(s.map.as_deref(), Some("q3dm17^"));
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["Sarge^", "Grunt^", "Bot0^", "Bot1^"]);
        assert!(s
            .rules
            .unwrap()
            .iter()
            .all(|(k, v)| !k.contains('\x01') && !v.contains("^1") && !v.contains('\x7f')));
    }
}
