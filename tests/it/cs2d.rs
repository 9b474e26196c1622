//! CS2D against the simulator on 127.0.0.1 through the exporter's own poll: the status with
//! bots and the player list, each misbehaviour ending in its reason, and `/probe?module=c2d`.

use crate::support::poll_sim;
use gameserver_exporter::query::Request;
use gameserver_exporter::simulate::cs2d::{spawn, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::Protocol;

fn world() -> World {
    World::new(WorldState {
        name: "CS2D Deathmatch".into(),
        map: "de_cs2dm".into(),
        game: "CS2D".into(),
        version: "1.0.1.4".into(),
        max: 20,
        bots: 1,
        players: vec![("Nox".into(), 9, 0.0), ("Player".into(), -2, 0.0)],
        rules: Vec::new(),
        password: true,
    })
}

fn request(server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = poll_sim::request(Protocol::Cs2d, server, want);
    req.players = true;
    req
}

async fn status(m: Misbehaviour, want: Option<Reason>) -> Result<Status, Reason> {
    let server = spawn(world(), m).await.unwrap();
    poll_sim::outcome(&request(&server, want)).await
}

/// Name, map, counts, bots, password, and the players with ids and scores (negative too).
#[tokio::test]
async fn status_with_players() {
    let s = status(Misbehaviour::None, None).await.unwrap();
    assert_eq!((s.online, s.max, s.bots), (2, 20, Some(1)));
    assert_eq!(s.name, "CS2D Deathmatch");
    assert_eq!(s.map.as_deref(), Some("de_cs2dm"));
    assert_eq!(s.password, Some(true));
    let players: Vec<(String, Option<String>, Option<i64>)> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.id, p.score))
        .collect();
    assert_eq!(
        players,
        [
            ("Nox".into(), Some("1".into()), Some(9)),
            ("Player".into(), Some("2".into()), Some(-2)),
        ]
    );
}

/// A reply without the player list is a status without one, not a failure.
#[tokio::test]
async fn info_only() {
    let s = status(Misbehaviour::InfoOnly, None).await.unwrap();
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.players, None);
}

/// Silence, a cut record, a lying count, a name that never ends and another message end in
/// their reasons.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::LyingCount, Reason::Malformed),
        (Misbehaviour::EndlessName, Reason::Malformed),
        (Misbehaviour::OtherHeader, Reason::Mismatch),
    ] {
        assert_eq!(status(m, Some(want)).await.unwrap_err(), want, "{m:?}");
    }
}
