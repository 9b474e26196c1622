//! OpenTTD game info against the simulator on 127.0.0.1, through the exporter's own poll
//! (spec, driver, TCP link): versions 7, 6 and 4, and every misbehaviour ending in its reason.

use crate::support::patience;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::openttd::{spawn, Misbehaviour, OpenttdConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};

fn world() -> World {
    World::new(WorldState {
        name: "Cargodist | Public #1".into(),
        map: "Random Map".into(),
        version: "14.1".into(),
        max: 25,
        players: vec![("railfan".into(), 0, 0.0), ("busdriver".into(), 0, 0.0)],
        password: true,
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Openttd,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn server(version: u8, misbehaviour: Misbehaviour) -> SimServer {
    spawn(
        world(),
        OpenttdConfig {
            version,
            misbehaviour,
        },
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn every_version_reads_the_same_server() {
    for (version, map) in [
        (7, "256x256 temperate"),
        (6, "256x256 temperate"),
        (4, "Random Map"),
    ] {
        let s = server(version, Misbehaviour::None).await;
        let mut req = request(&s);
        req.rules = true;
        let st = poll(&req).await.unwrap();
        assert_eq!(st.name, "Cargodist | Public #1", "v{version}");
        assert_eq!((st.online, st.max), (2, 25), "v{version}");
        assert_eq!(st.version.as_deref(), Some("14.1"));
        assert_eq!(st.game.as_deref(), Some("OpenTTD"));
        assert_eq!(st.map.as_deref(), Some(map), "v{version}");
        assert_eq!(st.password, Some(true));
        assert_eq!(st.players, None);
        let rules = st.rules.unwrap();
        let rule = |k: &str| rules.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(rule("companies_on"), Some("1"), "v{version}");
        assert_eq!(rule("start_date"), Some("1950-01-01"), "v{version}");
        assert_eq!(
            rule("ticks_playing"),
            (version >= 7).then_some("29600"),
            "v{version}"
        );
    }
}

#[tokio::test]
async fn byte_by_byte_and_foreign_packets() {
    for m in [Misbehaviour::Bytewise, Misbehaviour::Foreign] {
        let s = server(6, m).await;
        let st = poll(&request(&s)).await.unwrap();
        assert_eq!((st.online, st.max), (2, 25), "{m:?}");
    }
}

#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    for (m, reason) in [
        (Misbehaviour::LyingSize, Reason::Malformed),
        (Misbehaviour::LyingGrfCount, Reason::Malformed),
        (Misbehaviour::EndlessString, Reason::Malformed),
        (Misbehaviour::NeverEnds, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Full, Reason::Refused),
        (Misbehaviour::Flood, Reason::Mismatch),
        (Misbehaviour::FutureVersion, Reason::Malformed),
    ] {
        let s = server(6, m).await;
        let mut req = request(&s);
        req.timeout = patience::timeout_for(reason);
        let e = match poll(&req).await {
            Ok(st) => panic!("{m:?} was up: {st:?}"),
            Err(e) => e,
        };
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}

/// A server that closes without a word (a wrong port, a proxy): not up.
#[tokio::test]
async fn closed_before_the_answer() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            // Read the request, then close without answering.
            let mut b = [0u8; 3];
            let _ = tokio::io::AsyncReadExt::read_exact(&mut s, &mut b).await;
            let _ = tokio::io::AsyncWriteExt::shutdown(&mut s).await;
        }
    });
    let mut req = Request::new(
        Protocol::Openttd,
        Address::parse(&addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    let e = poll(&req).await.unwrap_err();
    assert_eq!(e.reason, Reason::Incomplete, "{e:?}");
}
