//! BZFlag's query against the simulator on 127.0.0.1, through the exporter's own poll
//! (spec, driver, TCP link): counts without observers, the player list and rules, and every
//! misbehaviour ending in its reason.

use crate::support::patience;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::bzflag::{spawn, BzflagConfig, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};

fn world() -> World {
    World::new(WorldState {
        max: 16,
        bots: 1,
        players: vec![("Tiger".into(), 7, 0.0), ("Phantom".into(), -3, 0.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Bzflag,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::ANSWERED;
    req
}

async fn server(observers: u16, misbehaviour: Misbehaviour) -> SimServer {
    spawn(
        world(),
        BzflagConfig {
            observers,
            misbehaviour,
        },
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn players_rules_and_observers_left_out() {
    let s = server(2, Misbehaviour::None).await;
    let mut req = request(&s);
    req.players = true;
    req.rules = true;
    let st = poll(&req).await.unwrap();
    assert_eq!((st.online, st.max, st.bots), (3, 16, Some(1)));
    assert_eq!(st.name, "");
    assert_eq!(st.game.as_deref(), Some("Team FFA"));
    assert_eq!(st.version.as_deref(), Some("0221"));
    let players: Vec<(String, Option<i64>)> = st
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score))
        .collect();
    assert_eq!(
        players,
        [
            ("Tiger".to_string(), Some(7)),
            ("Phantom".to_string(), Some(-3)),
            ("robot1".to_string(), Some(0)),
        ]
    );
    let rules = st.rules.unwrap();
    assert!(
        rules.contains(&("max_shots".into(), "3".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("style".into(), "Team FFA".into())),
        "{rules:?}"
    );
}

#[tokio::test]
async fn without_players_or_rules_neither_is_published() {
    let s = server(0, Misbehaviour::None).await;
    let st = poll(&request(&s)).await.unwrap();
    assert_eq!((st.online, st.max), (3, 16));
    assert_eq!((st.players, st.rules), (None, None));
}

#[tokio::test]
async fn byte_by_byte_and_broadcasts_read_the_same() {
    for m in [Misbehaviour::Bytewise, Misbehaviour::Broadcast] {
        let s = server(1, m).await;
        let mut req = request(&s);
        req.players = true;
        let st = poll(&req).await.unwrap();
        assert_eq!((st.online, st.max, st.bots), (3, 16, Some(1)), "{m:?}");
        assert_eq!(st.players.map(|p| p.len()), Some(3), "{m:?}");
    }
}

#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    for (m, reason) in [
        (Misbehaviour::Full, Reason::Refused),
        (Misbehaviour::NotBzfs, Reason::Malformed),
        (Misbehaviour::ShortGame, Reason::Malformed),
        (Misbehaviour::CutRecord, Reason::Incomplete),
        (Misbehaviour::LyingCount, Reason::Timeout),
        (Misbehaviour::NeverEnds, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::HugeCount, Reason::TooLarge),
        (Misbehaviour::Flood, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(0, m).await;
        let mut req = request(&s);
        req.timeout = patience::timeout_for(reason);
        let e = match poll(&req).await {
            Ok(st) => panic!("{m:?} was up: {st:?}"),
            Err(e) => e,
        };
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}

/// A capped reply: more bytes than `max_reply_bytes` allows is `too_large`, not a hang.
#[tokio::test]
async fn a_reply_past_the_cap_is_too_large() {
    let s = server(40, Misbehaviour::None).await;
    let mut req = request(&s);
    req.limits.max_reply_bytes = 2048;
    let e = poll(&req).await.unwrap_err();
    assert_eq!(e.reason, Reason::TooLarge, "{e:?}");
}
