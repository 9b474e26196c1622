//! Nadeo GBXRemote 2 against the simulator on 127.0.0.1, through the exporter's own poll
//! (spec, driver, TCP link): the three games, a login, and every misbehaviour ending in its
//! reason.

use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::nadeo::{
    config_with_login, spawn, Flavour, Misbehaviour, NadeoConfig, PASSWORD,
};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Credentials, Protocol};

fn world() -> World {
    World::new(WorldState {
        name: "$s$o$f90Stadium$fff | TA".into(),
        map: "$fffA01-Race".into(),
        max: 32,
        players: vec![
            ("$f00Speed$fffy".into(), 3, 0.0),
            ("drifter".into(), 12, 0.0),
        ],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Nadeo,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.players = true;
    req.rules = true;
    req
}

async fn server(config: NadeoConfig) -> SimServer {
    spawn(world(), config).await.unwrap()
}

fn with(flavour: Flavour, misbehaviour: Misbehaviour) -> NadeoConfig {
    NadeoConfig {
        flavour,
        misbehaviour,
        login: None,
    }
}

#[tokio::test]
async fn each_game_reads_the_same() {
    for (flavour, game, version) in [
        (Flavour::Trackmania2, "Trackmania 2", "3.3.0"),
        (Flavour::Shootmania, "Shootmania", "3.3.0"),
        (Flavour::Forever, "Trackmania Forever", "2.11.26"),
    ] {
        let s = server(with(flavour, Misbehaviour::None)).await;
        let st = poll(&request(&s)).await.unwrap();
        assert_eq!(st.name, "Stadium | TA", "{flavour:?}");
        assert_eq!((st.online, st.max), (2, 32), "{flavour:?}");
        assert_eq!(st.map.as_deref(), Some("A01-Race"), "{flavour:?}");
        assert_eq!(st.game.as_deref(), Some(game));
        assert_eq!(st.version.as_deref(), Some(version));
        let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["Speedy", "drifter"], "{flavour:?}");
        let rules = st.rules.unwrap();
        assert!(rules.iter().any(|(k, _)| k == "map_uid"), "{rules:?}");
    }
}

#[tokio::test]
async fn byte_by_byte_and_callbacks() {
    for m in [Misbehaviour::Bytewise, Misbehaviour::Callbacks] {
        let s = server(with(Flavour::Trackmania2, m)).await;
        let st = poll(&request(&s)).await.unwrap();
        assert_eq!((st.online, st.max), (2, 32), "{m:?}");
        assert_eq!(st.map.as_deref(), Some("A01-Race"), "{m:?}");
    }
}

#[tokio::test]
async fn login_then_read() {
    let s = server(config_with_login()).await;
    let creds = Credentials::password(PASSWORD);
    let mut req = request(&s);
    req.credentials = Some(creds.into());
    let st = poll(&req).await.unwrap();
    assert_eq!((st.online, st.max), (2, 32));

    // Without a login the server denies the reads: the target needs credentials.
    let e = poll(&request(&s)).await.unwrap_err();
    assert_eq!(e.reason, Reason::AuthRefused, "{e:?}");

    // A wrong password: a fault on Authenticate, and the password is in no error.
    let mut req = request(&s);
    req.credentials = Some(Credentials::password("not-the-password").into());
    let e = poll(&req).await.unwrap_err();
    assert_eq!(e.reason, Reason::AuthRefused, "{e:?}");
    assert!(!format!("{e:?}").contains("not-the-password"), "{e:?}");

    // A server quoting the password back in its fault string.
    let s = server(NadeoConfig {
        misbehaviour: Misbehaviour::EchoPassword,
        ..config_with_login()
    })
    .await;
    let mut req = request(&s);
    req.credentials = Some(Credentials::password("echo-me-9f2a").into());
    let e = poll(&req).await.unwrap_err();
    assert_eq!(e.reason, Reason::AuthRefused, "{e:?}");
    assert!(!format!("{e:?} {e}").contains("echo-me"), "{e:?}");
}

#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    for (m, reason) in [
        (Misbehaviour::OldHandshake, Reason::Malformed),
        (Misbehaviour::LyingLength, Reason::TooLarge),
        (Misbehaviour::NeverEnds, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::WrongHandle, Reason::Mismatch),
        (Misbehaviour::FaultAll, Reason::Malformed),
        (Misbehaviour::BadXml, Reason::Malformed),
    ] {
        let s = server(with(Flavour::Trackmania2, m)).await;
        let mut req = request(&s);
        req.timeout = Duration::from_millis(600);
        let e = poll(&req).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
