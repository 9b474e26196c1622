//! HexenWorld against the simulator on 127.0.0.1 through the exporter's own poll: the status
//! with players, each misbehaviour ending in its reason, a QuakeWorld server's reply (four
//! `FF`) never taken for HexenWorld's, and `/probe?module=hexen2`.

use crate::support::poll_sim;
use gameserver_exporter::query::Request;
use gameserver_exporter::simulate::hexen2::spawn;
use gameserver_exporter::simulate::quake2::Misbehaviour;
use gameserver_exporter::simulate::{quake1, SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::Protocol;

fn world() -> World {
    World::new(WorldState {
        name: "Hexen Arena".into(),
        map: "demo1".into(),
        game: "hw".into(),
        version: "HexenWorld 0.15".into(),
        max: 8,
        bots: 0,
        players: vec![
            ("Paladin".into(), 12, 300.0),
            ("Necromancer".into(), -1, 60.0),
        ],
        rules: vec![("fraglimit".into(), "30".into())],
        password: false,
    })
}

fn request(server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = poll_sim::request(Protocol::Hexen2, server, want);
    req.players = true;
    req
}

async fn status(m: Misbehaviour, want: Option<Reason>) -> Result<Status, Reason> {
    let server = spawn(world(), m).await.unwrap();
    poll_sim::outcome(&request(&server, want)).await
}

/// Name, map, counts and the players with their minutes as seconds.
#[tokio::test]
async fn status_with_players() {
    let s = status(Misbehaviour::None, None).await.unwrap();
    assert_eq!((s.online, s.max), (2, 8));
    assert_eq!(s.name, "Hexen Arena");
    assert_eq!(s.map.as_deref(), Some("demo1"));
    let players: Vec<(String, Option<i64>)> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score))
        .collect();
    assert_eq!(
        players,
        [
            ("Paladin".into(), Some(12)),
            ("Necromancer".into(), Some(-1))
        ]
    );
}

/// Silence, a cut reply, lying counts and a printed message end in their reasons.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::LyingCounts, Reason::TooLarge),
        (Misbehaviour::PrintOnly, Reason::Mismatch),
    ] {
        assert_eq!(status(m, Some(want)).await.unwrap_err(), want, "{m:?}");
    }
}

/// A QuakeWorld server does not answer HexenWorld's five-`FF` request: nothing is mistaken
/// for a status.
#[tokio::test]
async fn quakeworld_server_is_not_hexenworld() {
    let server = quake1::spawn(world(), Misbehaviour::None).await.unwrap();
    let r = poll_sim::outcome(&request(&server, Some(Reason::Timeout))).await;
    assert_eq!(r.unwrap_err(), Reason::Timeout);
}
