//! What the server-health suites (`sdtd_health`, `webrcon_health`, `source_health`) share:
//! an A2S game polled through the public `poll`, its health read from a console beside it.

use std::net::SocketAddr;
use std::sync::Arc;

use super::patience;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::SimServer;
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

/// The consoles every console suite turns hostile, each started by the suite from its own
/// simulator's misbehaviour of that kind.
pub struct HostileConsoles {
    /// A console that answers (polled with a wrong password).
    pub good: SimServer,
    /// A reply that never ends.
    pub endless: SimServer,
    /// A length or line past every cap.
    pub huge: SimServer,
    /// Endless messages that answer nothing we asked.
    pub flood: SimServer,
}

/// [`assert_fails_up`] with the failures every console suite checks: a wrong password
/// (`auth_refused`), a closed port (`refused`), a reply that never ends (`timeout`), a huge
/// length (`too_large`), a flood of other messages (`mismatch`).
pub async fn assert_hostile_consoles_fail_up(
    game: SocketAddr,
    console: Console,
    password: &str,
    c: &HostileConsoles,
) {
    let cases = [
        (c.good.addr.port(), "pl4nted-wrong", "auth_refused"),
        (closed_port(), password, "refused"),
        (c.endless.addr.port(), password, "timeout"),
        (c.huge.addr.port(), password, "too_large"),
        (c.flood.addr.port(), password, "mismatch"),
    ];
    assert_fails_up(game, console, password, &cases).await;
}
