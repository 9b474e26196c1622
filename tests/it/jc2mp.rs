//! Just Cause 2 Multiplayer against the simulator on 127.0.0.1 through the exporter's own
//! poll: the status with players (Steam ids, pings), each misbehaviour ending in its reason,
//! the challenge-less memory, a plain GameSpy 3 server never taken for JC2-MP, and
//! `/probe?module=jc2m`.

use crate::support::poll_sim;
use gameserver_exporter::query::Request;
use gameserver_exporter::simulate::jc2mp::{spawn, Misbehaviour};
use gameserver_exporter::simulate::{gamespy3, SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::Protocol;

fn world() -> World {
    World::new(WorldState {
        name: "Panau Freeroam".into(),
        map: "Panau".into(),
        game: "jc2mp".into(),
        version: "0.2.0.3".into(),
        max: 5000,
        bots: 0,
        players: vec![("Rico".into(), 0, 0.0), ("Kane".into(), 0, 0.0)],
        rules: vec![("weather".into(), "rain".into())],
        password: false,
    })
}

fn request(server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = poll_sim::request(Protocol::Jc2mp, server, want);
    req.players = true;
    req.rules = true;
    req
}

async fn status(m: Misbehaviour, want: Option<Reason>) -> Result<Status, Reason> {
    let server = spawn(world(), m).await.unwrap();
    poll_sim::outcome(&request(&server, want)).await
}

/// Name, version, counts, the players with Steam ids and pings, the key/values as rules.
#[tokio::test]
async fn status_with_players() {
    let s = status(Misbehaviour::None, None).await.unwrap();
    assert_eq!((s.online, s.max), (2, 5000));
    assert_eq!(s.name, "Panau Freeroam");
    assert_eq!(s.version.as_deref(), Some("0.2.0.3"));
    assert_eq!(s.password, Some(false));
    let players: Vec<(String, Option<String>, Option<u32>)> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.id, p.ping))
        .collect();
    assert_eq!(
        players,
        [
            ("Rico".into(), Some("STEAM_0:1:1000".into()), Some(40)),
            ("Kane".into(), Some("STEAM_0:1:1001".into()), Some(41)),
        ]
    );
    let rules = s.rules.unwrap();
    assert!(
        rules.contains(&("weather".into(), "rain".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("gametype".into(), "Freeroam".into())),
        "{rules:?}"
    );
}

/// A server that ignores the handshake is read with the challenge-less request.
#[tokio::test]
async fn no_handshake() {
    let s = status(Misbehaviour::NoHandshake, None).await.unwrap();
    assert_eq!((s.online, s.max), (2, 5000));
}

/// Silence, a cut reply, key/values that never end, too many records, garbage and endless
/// challenges end in their reasons; lying counts are published as the server says.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::Unterminated, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Garbage, Reason::Malformed),
        (Misbehaviour::EndlessChallenges, Reason::Challenge),
    ] {
        assert_eq!(status(m, Some(want)).await.unwrap_err(), want, "{m:?}");
    }
    let s = status(Misbehaviour::LyingCounts, None).await.unwrap();
    assert_eq!((s.online, s.max), (1000, 1));
}

/// A GameSpy 3 server answers JC2-MP's request with its own layout (our simulator, like
/// many qr2 servers, does not look at the tail): its player section does not read as a count
/// and records, so the poll fails `malformed` instead of publishing it. The JC2-MP
/// simulator does not answer GameSpy 3's `FF FF FF 01`.
#[tokio::test]
async fn gamespy3_is_not_jc2mp() {
    let server = gamespy3::spawn(world(), Default::default()).await.unwrap();
    let r = poll_sim::outcome(&request(&server, Some(Reason::Malformed))).await;
    assert_eq!(r.unwrap_err(), Reason::Malformed);

    let server = spawn(world(), Misbehaviour::None).await.unwrap();
    let mut req = request(&server, Some(Reason::Timeout));
    req.protocol = Protocol::Gamespy3;
    assert_eq!(poll_sim::outcome(&req).await.unwrap_err(), Reason::Timeout);
}
