//! Vice City Multiplayer against the simulator on 127.0.0.1 through the exporter's own poll:
//! the status with the version and map of `i` and the names of `c`, only `i` and `c` asked,
//! each misbehaviour ending in its reason, a SA:MP server never taken for VC:MP, and
//! `/probe?module=vcm`.

use crate::support::poll_sim;
use gameserver_exporter::query::Request;
use gameserver_exporter::simulate::samp::Misbehaviour;
use gameserver_exporter::simulate::vcmp::spawn;
use gameserver_exporter::simulate::{samp, SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::Protocol;

fn world() -> World {
    World::new(WorldState {
        name: "Vice Deathmatch".into(),
        map: "Vice City".into(),
        game: "VC-DM 1.2".into(),
        version: "04rel006".into(),
        max: 100,
        bots: 0,
        players: vec![("Tommy".into(), 7, 0.0), ("Lance".into(), 3, 0.0)],
        rules: Vec::new(),
        password: true,
    })
}

fn request(server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = poll_sim::request(Protocol::Vcmp, server, want);
    req.players = true;
    req.rules = true;
    req
}

async fn status(m: Misbehaviour, want: Option<Reason>) -> Result<Status, Reason> {
    let server = spawn(world(), m).await.unwrap();
    poll_sim::outcome(&request(&server, want)).await
}

/// Name, version, game mode, map, counts, password, and the names without scores; no rules
/// (VC:MP has no `r`), so none are published.
#[tokio::test]
async fn status_with_players() {
    let s = status(Misbehaviour::None, None).await.unwrap();
    assert_eq!((s.online, s.max), (2, 100));
    assert_eq!(s.name, "Vice Deathmatch");
    assert_eq!(s.version.as_deref(), Some("04rel006"));
    assert_eq!(s.game.as_deref(), Some("VC-DM 1.2"));
    assert_eq!(s.map.as_deref(), Some("Vice City"));
    assert_eq!(s.password, Some(true));
    let players: Vec<(String, Option<i64>)> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score))
        .collect();
    assert_eq!(players, [("Tommy".into(), None), ("Lance".into(), None)]);
    assert_eq!(s.rules, None);
    assert!(!s.extras.contains_key("rules_error"), "{:?}", s.extras);
}

/// Silence, a cut reply, a length past the datagram and another header end in their
/// reasons; junk before every reply is skipped.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::LengthBeyondDatagram, Reason::Malformed),
        (Misbehaviour::WrongHeader, Reason::Mismatch),
    ] {
        assert_eq!(status(m, Some(want)).await.unwrap_err(), want, "{m:?}");
    }
    let s = status(Misbehaviour::JunkFlood, None).await.unwrap();
    assert_eq!((s.online, s.max), (2, 100));
}

/// A SA:MP server ignores `VCMP` requests, and the VC:MP simulator ignores `SAMP` ones:
/// neither is taken for the other.
#[tokio::test]
async fn samp_is_not_vcmp() {
    let server = samp::spawn(world(), Default::default()).await.unwrap();
    let r = poll_sim::outcome(&request(&server, Some(Reason::Timeout))).await;
    assert_eq!(r.unwrap_err(), Reason::Timeout);

    let server = spawn(world(), Misbehaviour::None).await.unwrap();
    let mut req = request(&server, Some(Reason::Timeout));
    req.protocol = Protocol::Samp;
    assert_eq!(poll_sim::outcome(&req).await.unwrap_err(), Reason::Timeout);
}
