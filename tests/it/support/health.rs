//! What the server-health suites (`sdtd_health`, `webrcon_health`, `source_health`) share:
//! an A2S game polled through the public `poll`, its health read from a console beside it.

use std::net::SocketAddr;
use std::sync::Arc;

use super::patience;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::status::Status;
use gameserver_exporter::target::{Address, Console, Credentials, Protocol, Rcon};

/// A poll of the A2S game at `game` (the patient timeout: both servers answer), its health read from the console on
/// `console_port`, spoken in `console` and logged in to with `password`.
pub fn request(game: SocketAddr, console: Console, console_port: u16, password: &str) -> Request {
    let mut req = Request::new(Protocol::A2s, Address::parse(&game.to_string()).unwrap());
    req.timeout = patience::ANSWERED;
    let rcon = Rcon::with_password(console_port, password).speaking(console);
    req.credentials = Some(Arc::new(Credentials {
        rcon: Some(rcon),
        ..Credentials::default()
    }));
    req
}

/// A loopback port nothing listens on.
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Polls the game with each `(console port, password, reason)`, each with the timeout its
/// reason needs ([`patience::timeout_for_label`]): the good A2S
/// status stays up (two players online) without health, `health_error` is the reason, and
/// neither the password tried nor `secret` appears in the status.
pub async fn assert_fails_up(
    game: SocketAddr,
    console: Console,
    secret: &str,
    cases: &[(u16, &str, &str)],
) {
    for &(port, password, reason) in cases {
        let mut req = request(game, console, port, password);
        req.timeout = patience::timeout_for_label(reason);
        let s = poll(&req).await.unwrap();
        assert_eq!(s.online, 2, "{reason}");
        assert_eq!(s.health, None, "{reason}");
        assert_eq!(s.extras["health_error"], reason);
        let shown = format!("{s:?}");
        assert!(!shown.contains(password) && !shown.contains(secret));
    }
}

/// Polls the game with a console that answers: the status, which must have health and no
/// `health_error`, and must not show `password`.
pub async fn poll_healthy(
    game: SocketAddr,
    console: Console,
    console_port: u16,
    password: &str,
) -> Status {
    let s = poll(&request(game, console, console_port, password))
        .await
        .unwrap();
    assert!(!s.extras.contains_key("health_error"), "{:?}", s.extras);
    assert!(s.health.is_some(), "no health: {s:?}");
    assert!(!format!("{s:?}").contains(password));
    s
}
