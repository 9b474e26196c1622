//! Frostbite (Battlefield) query against the simulator on 127.0.0.1, through the exporter's
//! own poll (spec, driver, TCP link): BF4 and Bad Company 2 layouts, the player list, and
//! every misbehaviour ending in its reason.

use crate::support::patience;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::battlefield::{spawn, BattlefieldConfig, Flavour, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};

fn world() -> World {
    World::new(WorldState {
        name: "=ADK= Siege 24/7 | EU".into(),
        map: "MP_Siege".into(),
        max: 64,
        players: vec![
            ("Sniper_Wolf".into(), 2410, 0.0),
            ("medic42".into(), 980, 0.0),
        ],
        password: true,
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Battlefield,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn server(flavour: Flavour, misbehaviour: Misbehaviour) -> SimServer {
    spawn(
        world(),
        BattlefieldConfig {
            flavour,
            misbehaviour,
        },
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn bf4_info_version_players() {
    let s = server(Flavour::Bf4, Misbehaviour::None).await;
    let mut req = request(&s);
    req.players = true;
    req.rules = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "=ADK= Siege 24/7 | EU");
    assert_eq!((st.online, st.max), (2, 64));
    assert_eq!(st.map.as_deref(), Some("MP_Siege"));
    assert_eq!(st.game.as_deref(), Some("Battlefield 4"));
    assert_eq!(st.version.as_deref(), Some("179665"));
    assert_eq!(st.password, Some(true));
    let players = st.players.unwrap();
    let got: Vec<_> = players
        .iter()
        .map(|p| (p.name.as_str(), p.score, p.ping))
        .collect();
    assert_eq!(
        got,
        [
            ("Sniper_Wolf", Some(2410), Some(30)),
            ("medic42", Some(980), Some(31))
        ]
    );
    let rules = st.rules.unwrap();
    let rule = |k: &str| rules.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(rule("gamemode"), Some("ConquestLarge0"));
    assert_eq!(rule("team1score"), Some("812.5"));
    assert_eq!(rule("region"), Some("EU"));
    assert_eq!(rule("address"), Some("127.0.0.1:25200"));
}

/// Bad Company 2: its extra words before the address, and `listPlayers` refused without a
/// login: up, the list noted as failed.
#[tokio::test]
async fn bc2_without_player_list() {
    let s = server(Flavour::Bc2, Misbehaviour::None).await;
    let mut req = request(&s);
    req.players = true;
    req.rules = true;
    let st = poll(&req).await.unwrap();
    assert_eq!((st.online, st.max), (2, 64));
    assert_eq!(st.game.as_deref(), Some("Battlefield: Bad Company 2"));
    assert_eq!(st.players, None);
    assert_eq!(st.extras["players_error"], "malformed");
    let rules = st.rules.unwrap();
    assert!(rules.contains(&("address".into(), "127.0.0.1:25200".into())));
}

#[tokio::test]
async fn byte_by_byte_and_events() {
    for m in [Misbehaviour::Bytewise, Misbehaviour::Events] {
        let s = server(Flavour::Bf4, m).await;
        let mut req = request(&s);
        req.players = true;
        let st = poll(&req).await.unwrap();
        assert_eq!(
            (st.online, st.players.map(|p| p.len())),
            (2, Some(2)),
            "{m:?}"
        );
    }
}

#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    for (m, reason) in [
        (Misbehaviour::LyingSize, Reason::Malformed),
        (Misbehaviour::HugeWordCount, Reason::Malformed),
        (Misbehaviour::NeverEnds, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::NotOk, Reason::Malformed),
        (Misbehaviour::Flood, Reason::Mismatch),
    ] {
        let s = server(Flavour::Bf4, m).await;
        let mut req = request(&s);
        req.timeout = patience::timeout_for(reason);
        let e = poll(&req).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
