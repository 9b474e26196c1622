//! What one poll is asked ([`Request`]) and what a target's polls remember between them
//! ([`Session`]).

use std::sync::Arc;
use std::time::Duration;

use crate::net::udp::UdpMux;
use crate::protocol::exchange::Params;
pub use crate::protocol::memory::Memory;
use crate::target::{
    self, Address, Credentials, Limits, Protocol, ProxyProtocol, Target, Tls, TlsMode,
};

/// Everything one poll needs.
#[derive(Debug, Clone)]
pub struct Request {
    pub protocol: Protocol,
    pub address: Address,
    /// Deadline for the whole poll, DNS and retries included.
    pub timeout: Duration,
    /// Code page for protocols that send legacy text (SA:MP). Windows-1252 by default.
    pub encoding: &'static encoding_rs::Encoding,
    /// Also fetch the player list (A2S_PLAYER, SA:MP `d`/`c`, Query full stat).
    pub players: bool,
    /// Also fetch rules (A2S_RULES, SA:MP `r`, Query full stat key/values).
    pub rules: bool,
    /// Keep bulky detail in `Status::extras` (raw JSON, every rule): for the `query` command,
    /// not for the daemon, which holds one Status per target.
    pub detail: bool,
    pub limits: Limits,
    /// Send a PROXY protocol header first on every TCP connection (ignored by UDP
    /// protocols; the config and the CLI refuse it for them).
    pub proxy_protocol: Option<ProxyProtocol>,
    /// HTTP protocols: TLS and certificate checks (plain HTTP, or HTTPS for protocols that
    /// exist only over TLS, unless the target says otherwise).
    pub tls: Tls,
    /// TeamSpeak 3: the voice port of the virtual server to select; `None`: 9987.
    pub voice_port: Option<u16>,
    /// Shared UDP sockets for A2S and SA:MP polls of targets that answered last time (the
    /// daemon's; `None` for one-off polls): no socket per poll in steady state.
    pub mux: Option<Arc<UdpMux>>,
    /// What a configured target logs in with; `None` for ad-hoc polls (`/probe?target=`,
    /// `[module.NAME]`, the `query` command without a config), which never carry any.
    pub credentials: Option<Arc<Credentials>>,
    /// The game preset the target named (`game = "..."`), by id: which console commands a
    /// health query over RCON runs (one `rcon` table serves several games' consoles).
    /// `None` for ad-hoc polls and targets without a preset.
    pub game: Option<&'static str>,
    /// The capacity a poll reports when the server says none (the target's `max_players`).
    pub max_players: Option<u32>,
}

/// What a dialogue may remember about one target between polls, so that steady-state polls
/// take one round trip: the last A2S challenge, the Minecraft Query token. A stale entry is
/// never an error: the dialogue falls back to the full exchange and refreshes it.
#[derive(Debug, Default)]
pub struct Session {
    /// What the target's protocol remembers, in the protocol's own type (its `Build`
    /// keeps it; `protocol/<p>/exchange.rs` defines it): the session names no protocol.
    pub memory: Memory,
    /// The last poll succeeded, so the next may use [`Request::mux`]. A shared unconnected
    /// socket gets no ICMP errors: after a failure the next poll uses a connected socket of its
    /// own, so a server going down reads `timeout` for one poll, then `refused`.
    pub udp_shared_ok: bool,
    /// A poll has finished on this session. Exchanges that read their local port
    /// ([`crate::query::registry::Build::LOCAL_PORT`]: Minecraft Query's token is tied to it)
    /// take the shared socket on the first poll too, so the token they get is for the port
    /// every later poll uses (a first poll on a socket of its own made the second shake hands
    /// again). The cost: a server down from the start reads `timeout` once, then `refused`.
    pub polled: bool,
    /// When the last poll's exchange ended (on the driver's clock): its last request went
    /// out no later. A protocol with a minimum gap waits that long after it before the next
    /// poll's first request, so polls at a short interval keep the gap too.
    pub last_exchange_end: Option<tokio::time::Instant>,
}

impl Request {
    /// What the exchange reads of this request (everything but where and over what).
    pub fn params(&self) -> Params {
        Params {
            players: self.players,
            rules: self.rules,
            detail: self.detail,
            limits: self.limits,
            encoding: self.encoding,
        }
    }

    /// The shared UDP sockets this poll may use: only for a target that answered last time.
    pub(super) fn shared_udp(&self, session: &Session) -> Option<&UdpMux> {
        self.mux.as_deref().filter(|_| session.udp_shared_ok)
    }

    /// [`Request::shared_udp`], and on a target's first poll the shared socket too for an
    /// exchange that ties what it remembers to its local port (see [`Session::polled`]).
    pub(super) fn shared_udp_for(&self, session: &Session, local_port: bool) -> Option<&UdpMux> {
        let first = local_port && !session.polled;
        self.mux
            .as_deref()
            .filter(|_| session.udp_shared_ok || first)
    }

    pub fn new(protocol: Protocol, address: Address) -> Request {
        Request {
            protocol,
            address,
            timeout: target::DEFAULT_TIMEOUT,
            encoding: target::DEFAULT_ENCODING,
            players: false,
            rules: false,
            detail: false,
            limits: Limits::default(),
            proxy_protocol: None,
            tls: protocol.http().map_or(Tls::Off, Tls::default_for),
            voice_port: None,
            mux: None,
            credentials: None,
            game: None,
            max_players: None,
        }
    }
}

impl From<&Target> for Request {
    /// The request the scheduler and `/probe` send for a configured target.
    fn from(t: &Target) -> Request {
        // Built in one go, every field from the target (the scheduler builds one per poll:
        // no defaults made and dropped again).
        let tls = match t.tls {
            TlsMode::Off => Tls::Off,
            TlsMode::Verify => Tls::Verify,
            TlsMode::Insecure => Tls::Insecure,
            // The pin comes with the credentials; without it (never, from the config),
            // nothing is trusted.
            TlsMode::Pinned => {
                let pin = t.credentials.as_ref().and_then(|c| c.tls_pin);
                Tls::Pinned(Box::new(pin.unwrap_or([0; 32])))
            }
        };
        // Lists only for targets that publish them; a game that never answers a request is
        // not sent it (it would only burn its share of the deadline).
        let quirks = t.game.and_then(crate::games::Game::find).map(|g| g.quirks);
        Request {
            protocol: t.protocol,
            address: t.address.clone(),
            timeout: t.timeout,
            encoding: t.encoding,
            players: t.players.is_some() && quirks.is_none_or(|q| q.players),
            rules: !t.rules.is_empty() && quirks.is_none_or(|q| q.rules),
            detail: false,
            limits: t.limits,
            proxy_protocol: t.proxy_protocol,
            tls,
            voice_port: t.voice_port.map(std::num::NonZeroU16::get),
            mux: None,
            credentials: t.credentials.clone(),
            game: t.game,
            max_players: t.max_players.map(|n| u32::from(n.get())),
        }
    }
}
