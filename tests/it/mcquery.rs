//! Minecraft Query dialogue against the simulator on 127.0.0.1, with exact values.

use gameserver_exporter::protocol::minecraft::query_exchange::Memory as McqMemory;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::net::udp::UdpMux;
use gameserver_exporter::protocol::minecraft::query::Charset;
use gameserver_exporter::query::{poll, poll_with, Request, Session};
use gameserver_exporter::simulate::mcquery::{spawn, McQueryConfig, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "A Minecraft Server".into(),
        map: "world".into(),
        game: "SMP".into(),
        version: "1.21.4".into(),
        max: 20,
        players: vec![
            ("barneygale".into(), 0, 0.0),
            ("Vivalahelvig".into(), 0, 0.0),
        ],
        rules: Vec::new(),
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::MinecraftQuery,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(900);
    req
}

/// A plain poll (the daemon's): full stat's counts, MOTD, map, game type and version; no
/// player list, no extras (the `query` command's, with `detail`: below).
#[tokio::test]
async fn plain_poll() {
    let server = spawn(world(), McQueryConfig::default()).await.unwrap();
    let s = poll(&request(&server)).await.unwrap();
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!(s.map.as_deref(), Some("world"));
    assert_eq!(s.game.as_deref(), Some("SMP"));
    assert_eq!(s.version.as_deref(), Some("1.21.4"));
    assert_eq!(s.players, None);
    assert!(s.extras.is_empty(), "{:?}", s.extras);
    let mut req = request(&server);
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.extras.get("host_port"), Some(&json!(server.addr.port())));
    assert_eq!(s.extras.get("host_ip"), Some(&json!("127.0.0.1")));
}

/// Full stat: version, player names, every key/value as rules; plugins and game id in the
/// `query` command's extras.
#[tokio::test]
async fn full_stat() {
    let config = McQueryConfig {
        plugins: "Paper: WorldEdit 7.3".into(),
        ..McQueryConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.players = true;
    req.rules = true;
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!(s.version.as_deref(), Some("1.21.4"));
    let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["barneygale", "Vivalahelvig"]);
    let rules = s.rules.unwrap();
    assert_eq!(rules.len(), 10);
    assert_eq!(rules[4], ("plugins".into(), "Paper: WorldEdit 7.3".into()));
    assert!(s.extras.is_empty());
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(
        s.extras.get("plugins"),
        Some(&json!("Paper: WorldEdit 7.3"))
    );
    assert_eq!(s.extras.get("game_id"), Some(&json!("MINECRAFT")));
    assert_eq!(s.extras.get("host_port"), Some(&json!(server.addr.port())));
}

/// The daemon's request: the shared UDP socket once the target has answered.
fn daemon_request(server: &SimServer) -> Request {
    let mut req = request(server);
    req.mux = Some(Arc::new(UdpMux::new()));
    req
}

/// The token is remembered on the shared socket, whose port stays: the first poll already
/// runs there (the exchange reads its local port, so it does not start on a socket of its
/// own, another port), shakes hands once, and every later poll is one stat.
#[tokio::test]
async fn token_remembered_across_polls() {
    let config = McQueryConfig::default();
    let control = config.control.clone();
    let server = spawn(world(), config).await.unwrap();
    let req = daemon_request(&server);
    let mut session = Session::default();
    for _ in 0..4 {
        let s = poll_with(&req, &mut session).await.unwrap();
        assert_eq!(s.online, 2);
    }
    assert_eq!((control.handshakes(), control.stats()), (1, 4));
    assert!(session.memory.get::<McqMemory>().token.is_some());
    assert_eq!(req.mux.as_ref().map(|m| m.shared_polls()), Some(4));
}

/// A server down from the start: the first poll, on the shared socket (no ICMP errors),
/// reads `timeout`; the next, on a connected socket of its own, `refused`.
#[tokio::test]
async fn down_from_the_start_times_out_then_refused() {
    let port = {
        let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    };
    let mut req = Request::new(
        Protocol::MinecraftQuery,
        Address::parse(&format!("127.0.0.1:{port}")).unwrap(),
    );
    req.timeout = Duration::from_millis(300);
    req.mux = Some(Arc::new(UdpMux::new()));
    let mut session = Session::default();
    let f = poll_with(&req, &mut session).await.unwrap_err();
    assert_eq!(f.reason, Reason::Timeout);
    assert_eq!(req.mux.as_ref().map(|m| m.shared_polls()), Some(1));
    let f = poll_with(&req, &mut session).await.unwrap_err();
    assert_eq!(f.reason, Reason::Refused);
    assert_eq!(req.mux.as_ref().map(|m| m.shared_polls()), Some(1));
}

/// After the server rotates its tokens, the old one is ignored: one refresh, then success.
#[tokio::test]
async fn token_rotation_refreshes() {
    let config = McQueryConfig::default();
    let control = config.control.clone();
    let server = spawn(world(), config).await.unwrap();
    let req = daemon_request(&server);
    let mut session = Session::default();
    for _ in 0..2 {
        poll_with(&req, &mut session).await.unwrap();
    }
    assert_eq!((control.handshakes(), control.stats()), (1, 2));
    let first = session.memory.get::<McqMemory>().token;
    control.rotate();
    let s = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(s.name, "A Minecraft Server");
    // The stale token's stat went unanswered (the simulator counts answered stats), then a
    // handshake and a stat.
    assert_eq!((control.handshakes(), control.stats()), (2, 3));
    assert_ne!(session.memory.get::<McqMemory>().token, first);
}

/// GeyserMC's padding text and key order decode like vanilla.
#[tokio::test]
async fn geyser_padding() {
    let server = spawn(world(), McQueryConfig::geyser()).await.unwrap();
    let mut req = request(&server);
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!(s.version.as_deref(), Some("1.21.4"));
    assert_eq!(s.map.as_deref(), Some("world"));
    assert_eq!(s.rules.unwrap()[0].0, "hostip");
    assert_eq!(s.players.map(|p| p.len()), Some(2));
}

/// A server writing ISO-8859-1 (`§` as the byte A7), as real ones do: the MOTD, map and
/// player names come back as Latin-1 text without their colour codes, never U+FFFD; UTF-8
/// from the same server decodes the same.
#[tokio::test]
async fn latin1_and_utf8_section_codes() {
    for charset in [Charset::Latin1, Charset::Utf8] {
        let world = World::new(WorldState {
            name: "§3<<<§2TRIBES".into(),
            map: "§awörld".into(),
            game: "SMP".into(),
            version: "1.8.8".into(),
            max: 20,
            players: vec![("§cJörg".into(), 0, 0.0)],
            ..WorldState::default()
        });
        let config = McQueryConfig {
            charset,
            ..McQueryConfig::default()
        };
        let server = spawn(world, config).await.unwrap();
        let mut req = request(&server);
        req.players = true;
        let s = poll(&req).await.unwrap();
        assert_eq!(s.name, "<<<TRIBES", "{charset:?}");
        assert_eq!(s.map.as_deref(), Some("wörld"), "{charset:?}");
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["Jörg"], "{charset:?}");
    }
}

/// A token that is not a number is `malformed`.
#[tokio::test]
async fn non_numeric_token_malformed() {
    let config = McQueryConfig {
        misbehaviour: Misbehaviour::NonNumericToken,
        ..McQueryConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let err = poll(&request(&server)).await.unwrap_err();
    assert_eq!(err.reason, Reason::Malformed, "{err}");
}

/// Replies echoing another session id are a `mismatch`.
#[tokio::test]
async fn wrong_session_mismatch() {
    let config = McQueryConfig {
        misbehaviour: Misbehaviour::WrongSession,
        ..McQueryConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let err = poll(&request(&server)).await.unwrap_err();
    assert_eq!(err.reason, Reason::Mismatch, "{err}");
}

/// A truncated stat reply is `malformed`.
#[tokio::test]
async fn truncated_stat_malformed() {
    let config = McQueryConfig {
        misbehaviour: Misbehaviour::Truncated,
        ..McQueryConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.players = true;
    let err = poll(&req).await.unwrap_err();
    assert_eq!(err.reason, Reason::Malformed, "{err}");
}

/// Junk before every reply is skipped and the poll succeeds.
#[tokio::test]
async fn junk_flood_skipped() {
    let config = McQueryConfig {
        misbehaviour: Misbehaviour::JunkFlood,
        ..McQueryConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.players = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.players.map(|p| p.len()), Some(2));
}

/// Silence (e.g. `enable-query=false`) is a `timeout`.
#[tokio::test]
async fn silence_is_timeout() {
    let config = McQueryConfig {
        misbehaviour: Misbehaviour::Silence,
        ..McQueryConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(&server);
    req.timeout = Duration::from_millis(300);
    let err = poll(&req).await.unwrap_err();
    assert_eq!(err.reason, Reason::Timeout);
}
