//! TeamSpeak 3 ServerQuery against the simulator on 127.0.0.1, through the exporter's own
//! poll (registry entry, driver, TCP link, minimum gap between polls): fields, escapes, the
//! voice port, every misbehaviour's reason, and the flood ban never reached.

use crate::support::patience;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::driver::Event;
use gameserver_exporter::query::{poll, poll_observed, poll_with, Observer, Request, Session};
use gameserver_exporter::secret::Secret;
use gameserver_exporter::simulate::teamspeak3::{spawn, Misbehaviour, Ts3Config, BANNER};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Credentials, Protocol};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn world() -> World {
    World::new(WorldState {
        name: "Team Room | EU/West".into(),
        version: "3.13.7 [Build: 1655727713]".into(),
        max: 32,
        bots: 0,
        players: vec![("Alice A".into(), 0, 0.0), ("bob\\b".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Teamspeak3,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    // Longer than the 2 s between polls of one server (the tests that poll one server more
    // than once run on a paused clock).
    req.timeout = Duration::from_secs(5);
    req
}

async fn server(config: Ts3Config) -> SimServer {
    spawn(world(), config).await.unwrap()
}

/// serverinfo's fields unescaped; query clients excluded; the list only with players; at
/// most 3 commands without a login.
// Paused clock: polls of one server keep TeamSpeak's 2 s gap between them.
#[tokio::test(start_paused = true)]
async fn serverinfo_and_clientlist() {
    let config = Ts3Config::default();
    let counters = config.counters.clone();
    let s = server(config).await;
    let mut req = request(&s);
    req.detail = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Team Room | EU/West");
    assert_eq!((st.online, st.max), (2, 32));
    assert_eq!(st.version.as_deref(), Some("3.13.7 [Build: 1655727713]"));
    assert_eq!(st.password, Some(false));
    assert_eq!(st.players, None);
    assert_eq!(st.extras["query_clients"], json!(1));
    assert_eq!(st.extras["voice_port"], json!(9987));
    assert_eq!(counters.commands(), 2);

    req.players = true;
    let st = poll(&req).await.unwrap();
    let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["Alice A", "bob\\b"]);
    assert_eq!(counters.commands(), 5);
}

/// The configured voice port selects the virtual server; another one is refused.
// Paused clock: polls of one server keep TeamSpeak's 2 s gap between them.
#[tokio::test(start_paused = true)]
async fn voice_port() {
    let s = server(Ts3Config {
        voice_port: 9990,
        ..Ts3Config::default()
    })
    .await;
    let mut req = request(&s);
    let f = poll(&req).await.unwrap_err();
    assert_eq!(f.reason, Reason::Malformed, "{}", f.detail);
    // id 1024, invalid serverID.
    assert!(
        f.detail.contains("TeamSpeak error id (use): 0x400"),
        "{}",
        f.detail
    );
    req.voice_port = Some(9990);
    assert_eq!(poll(&req).await.unwrap().online, 2);
}

/// Each misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::NotTs3, Reason::Malformed),
        (Misbehaviour::HugeLine, Reason::TooLarge),
        (Misbehaviour::CloseAfterUse, Reason::Incomplete),
        (Misbehaviour::RequireLogin, Reason::Malformed),
    ] {
        let s = server(Ts3Config {
            misbehaviour: m,
            ..Ts3Config::default()
        })
        .await;
        let mut req = request(&s);
        req.timeout = patience::timeout_for(reason);
        let f = poll(&req).await.unwrap_err();
        assert_eq!(f.reason, reason, "{m:?}: {}", f.detail);
    }
    let s = server(Ts3Config {
        misbehaviour: Misbehaviour::LyingCounts,
        ..Ts3Config::default()
    })
    .await;
    assert_eq!(poll(&request(&s)).await.unwrap().online, 0);
}

/// The simulator's flood protection is real: the 11th command within 3 s bans the address,
/// and a banned address gets the ban line instead of the banner.
#[tokio::test]
async fn simulator_bans_the_eleventh_command() {
    let config = Ts3Config::default();
    let counters = config.counters.clone();
    let s = server(config).await;
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    for _ in 0..11 {
        c.write_all(b"version\n").await.unwrap();
    }
    loop {
        match c.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with(std::str::from_utf8(BANNER).unwrap()));
    assert_eq!(text.matches("error id=0 msg=ok").count(), 10, "{text}");
    assert!(text.contains("error id=3329"), "{text}");
    assert_eq!(counters.bans(), 1);
    let f = poll(&request(&s)).await.unwrap_err();
    assert_eq!(f.reason, Reason::Refused, "{}", f.detail);

    // An allowlisted address is never banned.
    let allow = Ts3Config {
        allowlist: vec!["127.0.0.1".parse::<IpAddr>().unwrap()],
        ..Ts3Config::default()
    };
    let counters = allow.counters.clone();
    let s = server(allow).await;
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    for _ in 0..20 {
        c.write_all(b"version\n").await.unwrap();
    }
    c.write_all(b"quit\n").await.unwrap();
    let mut sink = Vec::new();
    let _ = c.read_to_end(&mut sink).await;
    assert_eq!(counters.bans(), 0);
}

/// Polled every interval (1 s, shorter than the registry's gap) with the player list, for a
/// minute of paused time: the gap between polls keeps every 3 s window under the limit, so
/// the server never bans us and every poll succeeds.
#[tokio::test(start_paused = true)]
async fn polled_for_a_minute_never_banned() {
    let config = Ts3Config::default();
    let counters = config.counters.clone();
    let s = server(config).await;
    let mut req = request(&s);
    req.players = true;
    let mut session = Session::default();
    let start = tokio::time::Instant::now();
    let mut polls = 0;
    while start.elapsed() < Duration::from_secs(60) {
        let st = poll_with(&req, &mut session).await.unwrap();
        assert_eq!(st.online, 2);
        polls += 1;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(counters.bans(), 0);
    assert!(polls >= 15, "{polls} polls");
    assert_eq!(counters.commands(), polls * 3);
}

/// Everything an observer (the `/probe?debug=true` transcript) is shown, as text.
#[derive(Default)]
struct Transcript(String);

impl Observer for Transcript {
    fn event(&mut self, _at: tokio::time::Instant, event: Event<'_>) {
        let line = match event {
            Event::Sent { bytes, what } => {
                format!("sent {what}: {}", String::from_utf8_lossy(bytes))
            }
            Event::SentSecret { len, what } => format!("sent {what}: <redacted {len} bytes>"),
            Event::Received { bytes } => format!("got {}", String::from_utf8_lossy(bytes)),
            other => format!("{other:?}"),
        };
        self.0.push_str(&line);
        self.0.push('\n');
    }
}

fn with_login(req: &mut Request, username: Option<&str>, password: &str) {
    req.credentials = Some(Arc::new(Credentials {
        username: username.map(str::to_string),
        password: Some(Secret::new(password)),
        ..Credentials::default()
    }));
}

/// With a password the poll logs in (4 commands with the list, the budget); the login line
/// never reaches the observer: only its length. A wrong password is `auth_refused`, and its
/// error names no secret.
// Paused clock: polls of one server keep TeamSpeak's 2 s gap between them.
#[tokio::test(start_paused = true)]
async fn login_redacted_and_refused() {
    const SECRET: &str = "hunter2-ts3-Pl4nted";
    let config = Ts3Config {
        misbehaviour: Misbehaviour::RequireLogin,
        login: Some(("monitor".into(), SECRET.into())),
        ..Ts3Config::default()
    };
    let counters = config.counters.clone();
    let s = server(config).await;
    let mut req = request(&s);
    req.players = true;
    with_login(&mut req, Some("monitor"), SECRET);
    let mut t = Transcript::default();
    let st = poll_observed(&req, &mut Session::default(), Some(&mut t))
        .await
        .unwrap();
    assert_eq!(st.online, 2);
    assert_eq!(counters.commands(), 4);
    assert!(!t.0.contains(SECRET), "{}", t.0);
    assert!(t.0.contains("sent login: <redacted"), "{}", t.0);
    assert!(!format!("{req:?}").contains(SECRET));

    with_login(&mut req, Some("monitor"), "wrong-password");
    let f = poll(&req).await.unwrap_err();
    assert_eq!(f.reason, Reason::AuthRefused, "{}", f.detail);
    assert!(!f.detail.contains("wrong-password"), "{}", f.detail);
    assert_eq!(counters.logins_refused(), 1);

    // A password without a username logs in as serveradmin.
    with_login(&mut req, None, SECRET);
    assert_eq!(poll(&req).await.unwrap_err().reason, Reason::AuthRefused);
}

/// Six polls at once, each with a session of its own (as `/probe` and targets of several
/// virtual servers on one host do): the per-server gate runs them one at a time, 2 s apart,
/// so the 18 commands never make a 3 s window of more than 10. Without it, the burst bans.
#[tokio::test(start_paused = true)]
async fn concurrent_sessions_share_the_budget() {
    let config = Ts3Config::default();
    let counters = config.counters.clone();
    let s = server(config).await;
    let mut req = request(&s);
    req.players = true;
    req.timeout = Duration::from_secs(30);
    let (a, b, c, d, e, f) = tokio::join!(
        poll(&req),
        poll(&req),
        poll(&req),
        poll(&req),
        poll(&req),
        poll(&req)
    );
    let results = [a, b, c, d, e, f];
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!((counters.commands(), counters.bans()), (18, 0));
}
