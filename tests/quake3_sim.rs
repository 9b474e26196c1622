//! The Quake 3 codec and exchange against the simulator over real loopback UDP, with a small
//! driver of its own (the generic query driver takes the protocol over later).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::quake3::{
    challenge, to_status, Action, Command, Exchange, Outcome, Want, MAX_PLAYERS,
};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::simulate::quake3::{
    spawn, Flavour, Misbehaviour, Quake3Config, HUGE_LIST,
};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use tokio::net::UdpSocket;

/// A shorter flood gap than DarkPlaces' second keeps the suite quick; the exchange keeps a
/// slightly longer one, as the real defaults do (1 s against 1.1 s).
const FLOOD: Duration = Duration::from_millis(300);
const GAP: Duration = Duration::from_millis(330);

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

#[derive(Debug, PartialEq)]
enum Failed {
    Timeout,
    Decode(DecodeError),
}

impl Failed {
    fn reason(&self) -> Reason {
        match self {
            Failed::Timeout => Reason::Timeout,
            Failed::Decode(e) => e.reason(),
        }
    }
}

/// Runs one exchange until done or `budget` passes; mismatched datagrams are skipped.
async fn exchange(
    sock: &UdpSocket,
    server: SocketAddr,
    want_info: bool,
    nonce: u32,
    budget: Duration,
) -> (Result<Outcome, Failed>, u32) {
    let deadline = Instant::now() + budget;
    let mut x = Exchange::new(challenge(nonce), want_info, GAP);
    let mut buf = vec![0u8; 65536];
    loop {
        let now = Instant::now();
        let until = match x.poll(now) {
            Action::Send(bytes) => {
                sock.send_to(&bytes, server).await.unwrap();
                continue;
            }
            Action::WaitUntil(t) => t.min(deadline),
            Action::Done => break,
        };
        if now >= deadline {
            break;
        }
        let wait = until.saturating_duration_since(now);
        if let Ok(Ok((n, _))) = tokio::time::timeout(wait, sock.recv_from(&mut buf)).await {
            match x.handle(&buf[..n], Instant::now()) {
                Ok(()) | Err(DecodeError::Mismatch(_)) => {}
                Err(e) => return (Err(Failed::Decode(e)), x.sends()),
            }
        }
    }
    let sends = x.sends();
    (x.finish().ok_or(Failed::Timeout), sends)
}

async fn client() -> UdpSocket {
    UdpSocket::bind("127.0.0.1:0").await.unwrap()
}

const ALL: Want = Want {
    detail: true,
    players: true,
    rules: true,
};

fn status(o: &Outcome) -> Status {
    to_status(&o.status, o.info.as_ref(), ALL, o.latency)
}

/// ioquake3 shape, getstatus alone: every field from the world, colours stripped, bots by
/// their zero ping, the rules in order without our challenge.
#[tokio::test]
async fn ioquake3_status() {
    let server = spawn(world(), Quake3Config::default()).await.unwrap();
    let sock = client().await;
    let (o, sends) = exchange(&sock, server.addr, false, 1, Duration::from_secs(2)).await;
    let s = status(&o.unwrap());
    assert_eq!(sends, 1);
    assert_eq!(s.name, "Rail Arena");
    assert_eq!((s.online, s.max, s.bots), (4, 16, Some(2)));
    assert_eq!(s.map.as_deref(), Some("q3dm17"));
    assert_eq!(s.game.as_deref(), Some("baseq3"));
    assert_eq!(s.version.as_deref(), Some("ioq3 1.36"));
    assert_eq!(s.password, Some(false));
    let players = s.players.unwrap();
    assert_eq!(players[0].name, "Sarge");
    assert_eq!((players[0].score, players[0].ping), (Some(12), Some(20)));
    assert_eq!(players[3].name, "Bot1");
    let rules = s.rules.unwrap();
    assert_eq!(rules[0], ("sv_hostname".into(), "Rail Arena".into()));
    assert!(rules.iter().all(|(k, _)| k != "challenge"));
    assert!(rules.contains(&("fraglimit".into(), "20".into())));
}

/// With private slots and getinfo: max is net of them, getinfo comes a gap after getstatus,
/// and (private slots present) the bots still come from the pings.
#[tokio::test]
async fn ioquake3_with_info_and_private_slots() {
    let config = Quake3Config {
        private_slots: 4,
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let sock = client().await;
    let start = Instant::now();
    let (o, sends) = exchange(&sock, server.addr, true, 2, Duration::from_secs(2)).await;
    let o = o.unwrap();
    assert!(start.elapsed() >= GAP);
    assert_eq!(sends, 2);
    assert_eq!((counters.status(), counters.info()), (1, 1));
    let s = status(&o);
    assert_eq!((s.online, s.max, s.bots), (4, 16, Some(2)));
    assert_eq!(s.extras.get("private_slots"), Some(&serde_json::json!(4)));
    assert_eq!(
        s.extras.get("info_g_humanplayers"),
        Some(&serde_json::json!(2))
    );
}

/// DarkPlaces shape with getinfo: `hostname`, the server's own bot count.
#[tokio::test]
async fn darkplaces_status_and_info() {
    let config = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(FLOOD),
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let sock = client().await;
    let (o, _) = exchange(&sock, server.addr, true, 3, Duration::from_secs(2)).await;
    let s = status(&o.unwrap());
    assert_eq!(s.name, "Rail Arena");
    assert_eq!((s.online, s.max, s.bots), (4, 16, Some(2)));
    assert_eq!(s.extras.get("bots_from"), Some(&serde_json::json!("bots")));
    assert_eq!(counters.flooded(), 0);
}

/// The flood-protected server drops a naive second request sent 10 ms after the first.
#[tokio::test]
async fn flood_protection_drops_fast_repeats() {
    let config = Quake3Config {
        flood_gap: Some(FLOOD),
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let sock = client().await;
    let mut req = Vec::new();
    gameserver_exporter::protocol::quake3::encode_request(Command::Status, "a", &mut req);
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

/// Polled back to back (status and info each time) for several rounds, the flood-protected
/// server never drops a request and never fails a poll: every send keeps the gap.
#[tokio::test]
async fn flood_protected_polled_repeatedly() {
    let config = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(FLOOD),
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let sock = client().await;
    for round in 0..4 {
        let (o, sends) = exchange(&sock, server.addr, true, round, Duration::from_secs(2)).await;
        let o = o.unwrap_or_else(|e| panic!("round {round}: {e:?}"));
        assert!(o.info.is_some(), "round {round}");
        assert_eq!(sends, 2, "round {round}");
        // The next poll's first request must keep the gap too (the registry's job later).
        tokio::time::sleep(GAP).await;
    }
    assert_eq!(counters.flooded(), 0);
    assert_eq!((counters.status(), counters.info()), (4, 4));
}

/// Lossy and flood-protected: the first reply is lost, the resend waits out the gap and is
/// answered; nothing is dropped by the flood filter.
#[tokio::test]
async fn lossy_flood_protected_answers_after_resend() {
    let config = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(FLOOD),
        lossy: true,
        ..Quake3Config::default()
    };
    let counters = config.counters.clone();
    let server = spawn(world(), config).await.unwrap();
    let sock = client().await;
    let start = Instant::now();
    let (o, sends) = exchange(&sock, server.addr, false, 9, Duration::from_secs(2)).await;
    assert_eq!(status(&o.unwrap()).online, 4);
    assert!(start.elapsed() >= GAP);
    assert_eq!(sends, 2);
    assert_eq!((counters.lost(), counters.flooded()), (1, 0));
}

async fn misbehaving(m: Misbehaviour, flavour: Flavour) -> Result<Outcome, Failed> {
    let config = Quake3Config {
        flavour,
        misbehaviour: m,
        ..Quake3Config::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let sock = client().await;
    exchange(&sock, server.addr, false, 5, Duration::from_millis(800))
        .await
        .0
}

/// Silence and a wrong challenge end in a timeout (the wrong answers are skipped).
#[tokio::test]
async fn silence_and_wrong_challenge_time_out() {
    for m in [Misbehaviour::Silence, Misbehaviour::WrongChallenge] {
        let r = misbehaving(m, Flavour::Ioquake3).await;
        assert_eq!(r.unwrap_err().reason(), Reason::Timeout, "{m:?}");
    }
}

/// A cut reply is malformed (truncated), in both shapes.
#[tokio::test]
async fn truncated_is_malformed() {
    for flavour in [Flavour::Ioquake3, Flavour::DarkPlaces] {
        let r = misbehaving(Misbehaviour::Truncated, flavour).await;
        let e = r.unwrap_err();
        assert!(
            matches!(e, Failed::Decode(DecodeError::Truncated { .. })),
            "{flavour:?}: {e:?}"
        );
        assert_eq!(e.reason(), Reason::Malformed);
    }
}

/// More player lines than slots is too_large, in both shapes.
#[tokio::test]
async fn lying_counts_are_too_large() {
    for flavour in [Flavour::Ioquake3, Flavour::DarkPlaces] {
        let e = misbehaving(Misbehaviour::LyingCounts, flavour)
            .await
            .unwrap_err();
        assert_eq!(e.reason(), Reason::TooLarge, "{flavour:?}: {e:?}");
    }
}

/// 10,000 player lines: all counted, only the cap stored.
#[tokio::test]
async fn huge_player_list_is_capped() {
    let o = misbehaving(Misbehaviour::HugePlayerList, Flavour::Ioquake3)
        .await
        .unwrap();
    let s = status(&o);
    assert_eq!(s.online, HUGE_LIST as u32);
    assert_eq!(s.players.map(|p| p.len()), Some(MAX_PLAYERS));
    assert_eq!(
        s.extras.get("players_not_listed"),
        Some(&serde_json::json!(HUGE_LIST - MAX_PLAYERS))
    );
}

/// Colour soup: every string comes out as the world's text, in both shapes.
#[tokio::test]
async fn colour_soup_is_stripped() {
    for flavour in [Flavour::Ioquake3, Flavour::DarkPlaces] {
        let o = misbehaving(Misbehaviour::ColourSoup, flavour)
            .await
            .unwrap();
        let s = status(&o);
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
