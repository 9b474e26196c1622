//! TeamSpeak 2 query against the simulator on 127.0.0.1, through the exporter's own poll
//! (registry entry, driver, TCP link): fields, the voice port, pipelined commands as qstat
//! sends them, every misbehaviour's reason, and `/probe?module=teamspeak2`.

use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::teamspeak2::{spawn, Misbehaviour, Ts2Config};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn world() -> World {
    World::new(WorldState {
        name: "Clan Room = EU".into(),
        max: 50,
        bots: 0,
        password: true,
        players: vec![("Alice A".into(), 0, 120.0), ("bob".into(), 0, 9.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Teamspeak2,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(3);
    req
}

async fn server(misbehaviour: Misbehaviour) -> SimServer {
    let config = Ts2Config {
        misbehaviour,
        ..Ts2Config::default()
    };
    spawn(world(), config).await.unwrap()
}

/// `si`'s fields; the list only with players, names, pings and seconds connected.
#[tokio::test]
async fn si_and_pl() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(&s);
    req.detail = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Clan Room = EU");
    assert_eq!((st.online, st.max), (2, 50));
    assert_eq!(st.password, Some(true));
    assert_eq!(st.players, None);
    assert_eq!(st.extras["voice_port"], json!(8767));
    assert_eq!(st.extras["platform"], json!("Linux"));

    req.players = true;
    let st = poll(&req).await.unwrap();
    let players = st.players.unwrap();
    let got: Vec<_> = players
        .iter()
        .map(|p| (p.name.as_str(), p.ping, p.duration))
        .collect();
    assert_eq!(
        got,
        [
            ("Alice A", Some(20), Some(120.0)),
            ("bob", Some(25), Some(9.0))
        ]
    );
}

/// The configured voice port selects the virtual server; another one is refused.
#[tokio::test]
async fn voice_port() {
    let s = spawn(
        world(),
        Ts2Config {
            voice_port: 8800,
            ..Ts2Config::default()
        },
    )
    .await
    .unwrap();
    let mut req = request(&s);
    let e = poll(&req).await.unwrap_err();
    assert_eq!(e.reason, Reason::Malformed, "{e:?}");
    req.voice_port = Some(8800);
    assert_eq!(poll(&req).await.unwrap().online, 2);
}

/// Answers one byte per write read the same; a refused `pl` leaves the status standing.
#[tokio::test]
async fn bytewise_and_refused_list() {
    let s = server(Misbehaviour::Bytewise).await;
    let mut req = request(&s);
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.players.unwrap().len(), 2);
    let s = server(Misbehaviour::PlayersRefused).await;
    let mut req = request(&s);
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.online, 2);
    assert_eq!(st.players, None);
    assert!(st.extras.contains_key("players_error"), "{:?}", st.extras);
}

/// Every misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::NotTs2, Reason::Malformed),
        (Misbehaviour::HugeLine, Reason::TooLarge),
        (Misbehaviour::ManyLines, Reason::TooLarge),
        (Misbehaviour::LyingCount, Reason::Malformed),
        (Misbehaviour::CloseAfterSel, Reason::Incomplete),
        (Misbehaviour::NeverEnds, Reason::Timeout),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let mut req = request(&s);
        req.timeout = Duration::from_millis(800);
        let e = poll(&req).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}

/// The simulator answers qstat's pipelined `si <port>` / `pl <port>` / `quit` in order, with
/// the banner first and the `"0.0.0.0"` address cell qstat's pattern wants.
#[tokio::test]
async fn pipelined_like_qstat() {
    let s = server(Misbehaviour::None).await;
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    c.write_all(b"si 8767\npl 8767\nquit\n").await.unwrap();
    let mut all = Vec::new();
    c.read_to_end(&mut all).await.unwrap();
    let text = String::from_utf8(all).unwrap();
    assert!(text.starts_with("[TS]\r\nserver_id=1\r\n"), "{text}");
    assert!(text.contains("server_currentusers=2\r\n"), "{text}");
    assert!(
        text.contains("\t20\t120\t0\t0\t0\t0\t\"0.0.0.0\"\t\"Alice A\"\t\"\"\r\n"),
        "{text}"
    );
    assert_eq!(text.matches("OK\r\n").count(), 2, "{text}");
}
