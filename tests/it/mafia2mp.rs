//! Mafia II Multiplayer and Mafia II Online against the simulator on 127.0.0.1 through the
//! exporter's own poll: the status with the player list (pings in Mafia II Online's
//! dialect), each misbehaviour ending in its reason, and `/probe?module=m2m` / `m2o`.

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::mafia2mp::{spawn, Mafia2Config, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};

use crate::support::patience;

fn world() -> World {
    World::new(WorldState {
        name: "Empire Bay Freeroam".into(),
        game: "Freeroam".into(),
        max: 32,
        players: vec![("Vito".into(), 0, 0.0), ("Joe".into(), 0, 0.0)],
        rules: Vec::new(),
        password: true,
        ..WorldState::default()
    })
}

fn config(protocol: Protocol, misbehaviour: Misbehaviour) -> Mafia2Config {
    let dialect = match protocol {
        Protocol::Mafia2online => gameserver_exporter::protocol::mafia2online::DIALECT,
        _ => gameserver_exporter::protocol::mafia2mp::DIALECT,
    };
    Mafia2Config {
        dialect,
        misbehaviour,
    }
}

fn request(protocol: Protocol, server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = Request::new(protocol, Address::parse(&server.addr.to_string()).unwrap());
    req.timeout = match want {
        Some(reason) => patience::timeout_for(reason),
        None => patience::ANSWERED,
    };
    req.players = true;
    req
}

async fn status(
    protocol: Protocol,
    m: Misbehaviour,
    want: Option<Reason>,
) -> Result<Status, Reason> {
    let server = spawn(world(), config(protocol, m)).await.unwrap();
    poll(&request(protocol, &server, want))
        .await
        .map_err(|f| f.reason)
}

/// Name, counts, game mode, password and the names; pings only from Mafia II Online.
#[tokio::test]
async fn status_with_players() {
    for (protocol, pings) in [
        (Protocol::Mafia2mp, [None, None]),
        (Protocol::Mafia2online, [Some(20), Some(40)]),
    ] {
        let s = status(protocol, Misbehaviour::None, None).await.unwrap();
        assert_eq!((s.online, s.max), (2, 32), "{protocol:?}");
        assert_eq!(s.name, "Empire Bay Freeroam");
        assert_eq!(s.game.as_deref(), Some("Freeroam"));
        assert_eq!(s.password, Some(true));
        let players: Vec<(String, Option<u32>)> = s
            .players
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.ping))
            .collect();
        assert_eq!(
            players,
            [("Vito".into(), pings[0]), ("Joe".into(), pings[1])],
            "{protocol:?}"
        );
    }
}

/// The list stops at an empty name, as gamedig's does: what follows it is not read.
#[tokio::test]
async fn empty_name_ends_the_list() {
    for protocol in [Protocol::Mafia2mp, Protocol::Mafia2online] {
        let s = status(protocol, Misbehaviour::EmptyNameThenJunk, None)
            .await
            .unwrap();
        assert_eq!(s.players.unwrap().len(), 2, "{protocol:?}");
    }
}

/// Silence, a cut name, a lying length, a count that is no number or no server's, an
/// oversized list and the other dialect's magic end in their reasons, in both dialects.
#[tokio::test]
async fn misbehaviours() {
    for protocol in [Protocol::Mafia2mp, Protocol::Mafia2online] {
        for (m, want) in [
            (Misbehaviour::Silence, Reason::Timeout),
            (Misbehaviour::Truncated, Reason::Malformed),
            (Misbehaviour::LyingLength, Reason::Malformed),
            (Misbehaviour::CountNotANumber, Reason::Malformed),
            (Misbehaviour::LyingCount, Reason::Malformed),
            (Misbehaviour::Oversized, Reason::TooLarge),
            (Misbehaviour::OtherMagic, Reason::Mismatch),
        ] {
            let got = status(protocol, m, Some(want)).await.unwrap_err();
            assert_eq!(got, want, "{protocol:?} {m:?}");
        }
    }
}
