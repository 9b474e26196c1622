//! Soldat's file server against the simulator on 127.0.0.1 through the exporter's own poll:
//! gamestat.txt with the player list (whole and in 1-byte pieces), each misbehaviour ending
//! in its reason, and `/probe?module=soldat`.

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::soldat::{spawn, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};

use crate::support::patience;

fn world() -> World {
    World::new(WorldState {
        map: "ctf_Ash".into(),
        game: "Capture the Flag".into(),
        players: vec![("Major".into(), 12, 0.0), ("Kat".into(), -1, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    })
}

fn request(server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = Request::new(
        Protocol::Soldat,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = match want {
        Some(reason) => patience::timeout_for(reason),
        None => patience::ANSWERED,
    };
    req.players = true;
    req
}

async fn status(m: Misbehaviour, want: Option<Reason>) -> Result<Status, Reason> {
    let server = spawn(world(), m).await.unwrap();
    poll(&request(&server, want)).await.map_err(|f| f.reason)
}

/// Count, map, game mode and the players with kills as score and pings, whether the reply
/// comes whole, in 1-byte pieces or with sizes that lie (they are not read).
#[tokio::test]
async fn status_with_players() {
    for m in [
        Misbehaviour::None,
        Misbehaviour::Bytewise,
        Misbehaviour::LyingSizes,
    ] {
        let s = status(m, None).await.unwrap();
        assert_eq!((s.online, s.max), (2, 0), "{m:?}");
        assert_eq!(s.map.as_deref(), Some("ctf_Ash"));
        assert_eq!(s.game.as_deref(), Some("Capture the Flag"));
        let players: Vec<(String, Option<i64>, Option<u32>)> = s
            .players
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.score, p.ping))
            .collect();
        assert_eq!(
            players,
            [
                ("Major".into(), Some(12), Some(20)),
                ("Kat".into(), Some(-1), Some(40)),
            ],
            "{m:?}"
        );
    }
}

/// Silence, a reply that never ends, an oversized file, a stream cut before `ENDFILES`, a
/// count no server has, a cut record, no file and an HTTP answer end in their reasons.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::NeverEnds, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Truncated, Reason::Incomplete),
        (Misbehaviour::LyingCount, Reason::Malformed),
        (Misbehaviour::CutRecord, Reason::Malformed),
        (Misbehaviour::NoFile, Reason::Malformed),
        (Misbehaviour::Http, Reason::Malformed),
    ] {
        assert_eq!(status(m, Some(want)).await.unwrap_err(), want, "{m:?}");
    }
}
