//! The registry: one entry per protocol, and the one place that names them all.
//!
//! An entry says everything a poll needs besides the target: how the address resolves
//! ([`Resolve`]), how the protocol travels ([`Link`]), how its requests must be spaced
//! ([`Entry::min_gap`]) and how its exchange is built from a poll's [`Start`] and the
//! target's [`Session`] (and what it leaves there for the next poll): [`Build`]. The
//! protocol's id and default port are the target vocabulary's ([`Protocol`]). One generic
//! poll ([`run`]) does the rest for every protocol: resolve, open the link, build, drive,
//! remember. Adding a protocol adds its folder in `protocol/` (codec and exchange), its
//! simulator in `simulate/`, and here one entry and one [`Build`]; see
//! `docs/adding-a-protocol.md`.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::driver::{drive, Observer, Pacing, RESENDS};
use super::health;
use super::peer_gate;
use super::request::{Request, Session};
use super::transport::{TcpLink, Transport, UdpThenHttp};
use crate::net::http::HttpLink;
use crate::net::udp::UdpChannel;
use crate::net::{resolve, srv};
use crate::protocol::a2s::exchange::{self as a2s_exchange, A2s};
use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::exchange::{Error, Exchange, LinkError, Params};
use crate::protocol::factorio::exchange::{self as factorio_exchange, Factorio};
use crate::protocol::gamespy1::exchange::Gamespy1;
use crate::protocol::gamespy3::exchange as gamespy3_exchange;
use crate::protocol::gamespy3::GameSpy3;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::minecraft::query_exchange::{self as mcquery, McQuery};
use crate::protocol::minecraft::slp_exchange::Slp;
use crate::protocol::palworld::exchange::PalworldApi;
use crate::protocol::samp::exchange::Samp;
use crate::protocol::samp::Header;
use crate::protocol::teamspeak3::exchange::{self as ts3_exchange, Login, Ts3};
use crate::protocol::teeworlds::exchange::{self as teeworlds_exchange, Teeworlds};
use crate::protocol::teeworlds::machine::Tokens;
use crate::protocol::terraria::exchange::Tshock;
use crate::protocol::unreal2::Unreal2;
use crate::protocol::{
    ase, bedrock, doom3, fivem, gamespy2, mumble, palworld, quake3, satisfactory, terraria,
};
use crate::secret::Secret;
use crate::status::Status;
use crate::target::{Credentials, Protocol};

/// How a protocol's address becomes the socket address it talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// A and AAAA records (or a literal), the protocol's default port unless given.
    Plain,
    /// Minecraft's `_minecraft._tcp` SRV record first, unless the address has a port or is
    /// an IP literal; then as [`Resolve::Plain`].
    MinecraftSrv,
    /// As [`Resolve::Plain`], and the address must be IPv4 (an IPv4-mapped IPv6 one is
    /// taken as IPv4): SA:MP carries the server's IPv4 address in every request.
    Ipv4Only,
}

/// How a protocol reaches its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// UDP, on the daemon's shared socket once the target has answered (see
    /// [`Session::udp_shared_ok`]; from the first poll for exchanges that read their local
    /// port, [`Session::polled`]), else a connected socket of its own. The exchange is told
    /// its local port ([`Start::local_port`]): the shared socket's stays the same for the
    /// process's life, so a token the server ties to the client's address and port
    /// (Minecraft Query) stays good from poll to poll.
    UdpShared,
    /// A TCP stream; each attempt of a fallback chain opens a new connection.
    Tcp,
    /// An HTTP API: hyper's HTTP/1.1 client over TCP, or TLS as the target's
    /// [`crate::target::Tls`] says, one connection per poll (`net::http::HttpLink`). The
    /// exchange writes requests and reads whole responses in `protocol::http`'s message
    /// form, usually through `protocol::http::fetch::Fetch`.
    Http,
    /// UDP as [`Link::UdpShared`], then, if the exchange connects, HTTP(S) as [`Link::Http`]
    /// to the same address (`protocol::http::then::Then`: Satisfactory's HTTPS API, FiveM's
    /// `/players.json`). The TLS keys apply to the HTTP part where the protocol takes them.
    UdpThenHttp,
}

/// A poll in flight for callers that do not know the protocol's type (the CLI, `/probe`):
/// boxed once; everything inside it (driver, exchange, link) is monomorphized per protocol.
pub type PollFuture<'a> = Pin<Box<dyn Future<Output = Result<Status, Error>> + Send + 'a>>;

/// Something done with one protocol's exchange type: [`dispatch`] calls `visit` with the
/// type and entry of the protocol asked for. The scheduler builds its per-poll box inside
/// `visit`, so the generic poll ([`run`]) sits in that one box, unboxed (a boxed poll per
/// entry cost one allocation and ~640 instructions per poll: benches/RESULTS.md).
pub trait Visit {
    type Output;
    fn visit<X: Build>(self, entry: &'static Entry) -> Self::Output;
}
/// What a poll needs to know about one protocol.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub protocol: Protocol,
    pub resolve: Resolve,
    pub link: Link,
    /// The least time between two requests to the same server, resends included. Zero
    /// unless the server drops quick repeats: DarkPlaces-based servers (Quake 3 family) do
    /// within a second.
    pub min_gap: Duration,
    /// The exchange resends by itself and keeps [`Entry::min_gap`] per request kind
    /// (Teeworlds keeps two dialects in flight; its 0.7 info request may follow its
    /// handshake at once): the driver's resends and gap are off.
    pub self_paced: bool,
}

impl Entry {
    /// How the driver spaces this protocol's requests.
    pub fn pacing(&self) -> Pacing {
        if self.self_paced {
            return Pacing {
                resends: 0,
                min_gap: Duration::ZERO,
            };
        }
        Pacing {
            resends: RESENDS,
            min_gap: self.min_gap,
        }
    }
}

const A2S: Entry = Entry {
    protocol: Protocol::A2s,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};
const MINECRAFT: Entry = Entry {
    protocol: Protocol::Minecraft,
    resolve: Resolve::MinecraftSrv,
    link: Link::Tcp,
    min_gap: Duration::ZERO,
    self_paced: false,
};
/// Tokens are tied to the client's address and port: the shared socket's port is stable, so
/// the remembered token holds across polls (a connected socket of its own per poll, as
/// before, cost 1.7-2.1x an A2S poll: benches/RESULTS.md).
const MINECRAFT_QUERY: Entry = Entry {
    protocol: Protocol::MinecraftQuery,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};
const MINECRAFT_BEDROCK: Entry = Entry {
    protocol: Protocol::MinecraftBedrock,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};
const SAMP: Entry = Entry {
    protocol: Protocol::Samp,
    resolve: Resolve::Ipv4Only,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};
const MUMBLE: Entry = Entry {
    protocol: Protocol::Mumble,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};
/// Neither real server seen drops repeats (DDNet 16.4 and Teeworlds 0.7.5 answered ten
/// requests in a burst ten times); the gap keeps resends polite for servers run with limits.
const TEEWORLDS: Entry = Entry {
    protocol: Protocol::Teeworlds,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::from_millis(500),
    self_paced: true,
};

/// DarkPlaces drops a repeat from one address within 1 s (ioquake3 allows 10 a second):
/// resends wait [`crate::protocol::quake3::MIN_GAP`] (docs/protocols/quake3.md).
const QUAKE3: Entry = Entry {
    protocol: Protocol::Quake3,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: crate::protocol::quake3::MIN_GAP,
    self_paced: false,
};

const GAMESPY3: Entry = Entry {
    protocol: Protocol::Gamespy3,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// Multi Theft Auto rebuilds its reply about every 10 s but answers every request: no gap.
const ASE: Entry = Entry {
    protocol: Protocol::Ase,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// UT2004 answers quick repeats; a lost list request is not resent (only the info request
/// is, docs/protocols/unreal2.md).
const UNREAL2: Entry = Entry {
    protocol: Protocol::Unreal2,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// One `getInfo`, one reply; the engine answers repeats (its only limit is per-address
/// connection attempts, not info requests).
const DOOM3: Entry = Entry {
    protocol: Protocol::Doom3,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// One `\status\`, its parts collected until whole. No real server seen drops repeats
/// (netPanzer and the simulated Unreal layouts answer every copy).
const GAMESPY1: Entry = Entry {
    protocol: Protocol::Gamespy1,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// One query, one reply datagram.
const GAMESPY2: Entry = Entry {
    protocol: Protocol::Gamespy2,
    resolve: Resolve::Plain,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// TShock's REST API: one GET per poll.
const TERRARIA: Entry = Entry {
    protocol: Protocol::Terraria,
    resolve: Resolve::Plain,
    link: Link::Http,
    min_gap: Duration::ZERO,
    self_paced: false,
};
/// Palworld's REST API: two or three GETs on one connection.
const PALWORLD: Entry = Entry {
    protocol: Protocol::Palworld,
    resolve: Resolve::Plain,
    link: Link::Http,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// Cfx.re servers rate-limit `getinfo` per address (about 2 a second, burst 10): resends and
/// polls keep [`crate::protocol::fivem::MIN_GAP`] (docs/protocols/fivem.md).
/// With `players = true`, `/players.json` follows over TCP on the same port.
const FIVEM: Entry = Entry {
    protocol: Protocol::Fivem,
    resolve: Resolve::Plain,
    link: Link::UdpThenHttp,
    min_gap: crate::protocol::fivem::MIN_GAP,
    self_paced: false,
};

/// The Lightweight Query over UDP; with an API token, the HTTPS API on the same port.
const SATISFACTORY: Entry = Entry {
    protocol: Protocol::Satisfactory,
    resolve: Resolve::Plain,
    link: Link::UdpThenHttp,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// TeamSpeak bans an address sending about 10 commands within 3 s: a poll sends at most 4
/// (`protocol::teamspeak3::MAX_COMMANDS_PER_POLL`) back to back, and polls keep
/// [`crate::protocol::teamspeak3::MIN_GAP`] apart, so no 3 s ever holds more than 8.
/// Self-paced: the gap is between polls, not between one poll's commands.
const TEAMSPEAK3: Entry = Entry {
    protocol: Protocol::Teamspeak3,
    resolve: Resolve::Plain,
    link: Link::Tcp,
    min_gap: crate::protocol::teamspeak3::MIN_GAP,
    self_paced: true,
};

/// Factorio's RCON: one connection per poll, a login and one command (and the empty-command
/// marker Factorio leaves unanswered); nothing to pace.
const FACTORIO: Entry = Entry {
    protocol: Protocol::Factorio,
    resolve: Resolve::Plain,
    link: Link::Tcp,
    min_gap: Duration::ZERO,
    self_paced: false,
};

/// Calls `v` with `protocol`'s exchange type and entry: the one table from a protocol to
/// its exchange. A new protocol adds its arm here (the compiler asks for it).
pub fn dispatch<V: Visit>(protocol: Protocol, v: V) -> V::Output {
    match protocol {
        Protocol::A2s => v.visit::<A2s>(&A2S),
        Protocol::Minecraft => v.visit::<Slp>(&MINECRAFT),
        Protocol::MinecraftQuery => v.visit::<McQuery>(&MINECRAFT_QUERY),
        Protocol::MinecraftBedrock => {
            v.visit::<OneShot<bedrock::exchange::Ping>>(&MINECRAFT_BEDROCK)
        }
        Protocol::Samp => v.visit::<Samp>(&SAMP),
        Protocol::Mumble => v.visit::<OneShot<mumble::exchange::Ping>>(&MUMBLE),
        Protocol::Quake3 => v.visit::<OneShot<quake3::exchange::GetStatus>>(&QUAKE3),
        Protocol::Teeworlds => v.visit::<Teeworlds>(&TEEWORLDS),
        Protocol::Gamespy3 => v.visit::<GameSpy3>(&GAMESPY3),
        Protocol::Ase => v.visit::<OneShot<ase::exchange::FullStatus>>(&ASE),
        Protocol::Unreal2 => v.visit::<Unreal2>(&UNREAL2),
        Protocol::Doom3 => v.visit::<OneShot<doom3::GetInfo>>(&DOOM3),
        Protocol::Gamespy1 => v.visit::<Gamespy1>(&GAMESPY1),
        Protocol::Gamespy2 => v.visit::<OneShot<gamespy2::exchange::Query>>(&GAMESPY2),
        Protocol::Terraria => v.visit::<Fetch<Tshock>>(&TERRARIA),
        Protocol::Palworld => v.visit::<Fetch<PalworldApi>>(&PALWORLD),
        Protocol::Fivem => v.visit::<fivem::exchange::Poll>(&FIVEM),
        Protocol::Satisfactory => v.visit::<satisfactory::exchange::Poll>(&SATISFACTORY),
        Protocol::Teamspeak3 => v.visit::<Ts3>(&TEAMSPEAK3),
        Protocol::Factorio => v.visit::<Factorio>(&FACTORIO),
    }
}

/// The registry entry of `protocol`.
pub fn entry(protocol: Protocol) -> &'static Entry {
    struct EntryOf;
    impl Visit for EntryOf {
        type Output = &'static Entry;
        fn visit<X: Build>(self, entry: &'static Entry) -> &'static Entry {
            entry
        }
    }
    dispatch(protocol, EntryOf)
}

/// What an exchange is built from, besides the target's [`Session`].
#[derive(Debug, Clone, Copy)]
pub struct Start<'a> {
    pub params: Params,
    /// The host name as configured (Minecraft's handshake carries it; proxies route by it).
    /// The request's shared string, so an exchange that keeps it clones a pointer, not the
    /// name (one allocation per Minecraft poll otherwise).
    pub host: &'a Arc<str>,
    /// The resolved address the link talks to.
    pub peer: SocketAddr,
    /// Our local port on UDP links, for exchanges that ask ([`Build::LOCAL_PORT`]).
    pub local_port: Option<u16>,
    /// The entry's minimum gap, for self-paced exchanges.
    pub min_gap: Duration,
    /// The poll's deadline on the driver's clock.
    pub deadline: std::time::Instant,
    /// TeamSpeak 3: the voice port of the virtual server to select.
    pub voice_port: Option<u16>,
    /// What a configured target logs in with (`None`: an ad-hoc poll).
    pub credentials: Option<&'a Credentials>,
}

/// How a protocol's exchange is built for one poll, and what it leaves in the target's
/// [`Session`] for the next. The one place where per-protocol memory meets the session.
pub trait Build: Exchange + Send + Sized + 'static {
    fn build(start: &Start<'_>, session: &Session) -> Self;

    /// Called once the exchange has finished, whatever its result.
    fn remember(&self, _session: &mut Session) {}

    /// The least time from the end of one poll's exchange to the next poll's first request
    /// on the same session: the gap the driver keeps between requests (none for self-paced
    /// exchanges, which keep their own within a poll and need none across polls).
    fn poll_gap(entry: &Entry) -> Duration {
        entry.pacing().min_gap
    }

    /// The gap holds per server address across every session of this process (targets and
    /// `/probe` alike), not per target: for servers that ban by client address.
    const GAP_PER_SERVER: bool = false;

    /// The exchange reads [`Start::local_port`] (on UDP links): servers that tie a token to
    /// the client's port. Off, the poll never asks for it.
    const LOCAL_PORT: bool = false;

    /// Server health asked over RCON after a successful poll, on another port of the same
    /// host: the port and password (Minecraft targets with `rcon` set). `None` for every
    /// other protocol and target.
    fn health_over_rcon(_start: &Start<'_>) -> Option<(u16, Secret)> {
        None
    }
}

impl Build for A2s {
    fn build(start: &Start<'_>, session: &Session) -> Self {
        let memory = recalled::<a2s_exchange::Memory>(session);
        A2s::new(start.params, memory.challenge, start.deadline)
            .with_list_challenge(memory.list_challenge)
    }

    fn remember(&self, session: &mut Session) {
        session.memory.set(a2s_exchange::Memory {
            challenge: self.challenge(),
            list_challenge: self.list_challenge(),
        });
    }
}

impl Build for Slp {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        // Proxies route by the name the user typed, so it goes into the handshake, not the
        // SRV target; the port is the one actually connected to.
        Slp::new(
            start.params,
            start.host.clone(),
            start.peer.port(),
            start.deadline,
        )
    }

    fn health_over_rcon(start: &Start<'_>) -> Option<(u16, Secret)> {
        let rcon = start.credentials?.rcon.as_ref()?;
        let port = rcon
            .port
            .unwrap_or_else(|| Protocol::Minecraft.default_rcon_port());
        Some((port, rcon.password.clone()))
    }
}

impl Build for McQuery {
    fn build(start: &Start<'_>, session: &Session) -> Self {
        let memory = recalled::<mcquery::Memory>(session);
        McQuery::new(start.params, memory, start.local_port, start.deadline)
    }

    fn remember(&self, session: &mut Session) {
        session.memory.set(self.memory());
    }

    /// Tokens are tied to our address and port: a remembered one is only tried from the
    /// port it was issued to.
    const LOCAL_PORT: bool = true;
}

impl Build for OneShot<bedrock::exchange::Ping> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        bedrock::exchange::new(&start.params, start.deadline)
    }
}

impl Build for Samp {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        // Resolve::Ipv4Only has made the peer IPv4.
        let ip = ipv4_of(start.peer.ip()).unwrap_or(Ipv4Addr::UNSPECIFIED);
        let header = Header {
            ip,
            port: start.peer.port(),
        };
        Samp::new(start.params, header, start.deadline)
    }
}

impl Build for OneShot<mumble::exchange::Ping> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        mumble::exchange::new(&start.params, start.deadline)
    }
}

impl Build for OneShot<quake3::exchange::GetStatus> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        quake3::exchange::new(&start.params, start.deadline)
    }
}

impl Build for fivem::exchange::Poll {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        fivem::exchange::poll(&start.params, start.deadline)
    }
}

impl Build for satisfactory::exchange::Poll {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        let token = start.credentials.and_then(|c| c.api_token.as_ref());
        let authorization = token.map(|t| Secret::new(format!("Bearer {}", t.expose())));
        satisfactory::exchange::poll(&start.params, authorization, start.deadline)
    }
}

impl Build for Ts3 {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        let voice_port = start
            .voice_port
            .unwrap_or(crate::protocol::teamspeak3::DEFAULT_VOICE_PORT);
        // A password logs in (as serveradmin unless a username is given); none: anonymous.
        let login = start.credentials.and_then(|c| {
            Some(Login {
                username: c
                    .username
                    .clone()
                    .unwrap_or_else(|| ts3_exchange::DEFAULT_USERNAME.into()),
                password: c.password.clone()?,
            })
        });
        Ts3::new(start.params, voice_port, login, start.deadline)
    }

    /// TeamSpeak's gap is between polls only (its commands go back to back, at most 4).
    fn poll_gap(entry: &Entry) -> Duration {
        entry.min_gap
    }

    /// TeamSpeak counts commands per client address: targets of several virtual servers on
    /// one host and `/probe` share its budget.
    const GAP_PER_SERVER: bool = true;
}

impl Build for Teeworlds {
    fn build(start: &Start<'_>, session: &Session) -> Self {
        let hint = recalled::<teeworlds_exchange::Memory>(session).flavour;
        Teeworlds::new(
            start.params,
            hint,
            Tokens::random(),
            start.min_gap,
            start.deadline,
        )
    }

    fn remember(&self, session: &mut Session) {
        session.memory.set(teeworlds_exchange::Memory {
            flavour: self.flavour(),
        });
    }
}

impl Build for GameSpy3 {
    fn build(start: &Start<'_>, session: &Session) -> Self {
        // The session id only matches replies to this poll.
        let id = crate::protocol::exchange::tools::random_u32() as i32;
        GameSpy3::new(
            start.params,
            id,
            recalled::<gamespy3_exchange::Memory>(session).challengeless,
            start.deadline,
        )
    }

    fn remember(&self, session: &mut Session) {
        session.memory.set(gamespy3_exchange::Memory {
            challengeless: self.challengeless(),
        });
    }
}

impl Build for OneShot<ase::exchange::FullStatus> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        ase::exchange::new(&start.params, start.deadline)
    }
}

impl Build for Unreal2 {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        Unreal2::new(start.params, start.deadline)
    }
}

impl Build for OneShot<doom3::GetInfo> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        doom3::exchange::new(start.params, start.deadline)
    }
}

impl Build for Gamespy1 {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        Gamespy1::new(start.params, start.deadline)
    }
}

impl Build for OneShot<gamespy2::exchange::Query> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        gamespy2::exchange::new(&start.params, start.deadline)
    }
}

impl Build for Fetch<Tshock> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        let token = start.credentials.and_then(|c| c.token.clone());
        terraria::exchange::new(start.params, token, start.deadline)
    }
}

impl Build for Fetch<PalworldApi> {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        let password = start.credentials.and_then(|c| c.password.as_ref());
        let authorization = password.map(|p| basic_auth(palworld::USER, p));
        palworld::exchange::new(start.params, authorization, start.deadline)
    }
}

impl Build for Factorio {
    fn build(start: &Start<'_>, _session: &Session) -> Self {
        // The address is the RCON port; the target's `password_file` is the RCON password.
        let password = start.credentials.and_then(|c| c.password.clone());
        let first_id = (crate::protocol::exchange::tools::random_u32() >> 2) as i32;
        factorio_exchange::new(start.params, password, first_id, start.deadline)
    }
}

/// An `Authorization: Basic` value for `user` and `password`, itself a secret.
fn basic_auth(user: &str, password: &Secret) -> Secret {
    use base64::Engine;
    let raw = format!("{user}:{}", password.expose());
    Secret::new(format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    ))
}

/// What the target's protocol remembered from its last poll, or its default.
fn recalled<M: Copy + Default + 'static>(session: &Session) -> M {
    session.memory.peek::<M>().copied().unwrap_or_default()
}

/// Polls once through `req.protocol`'s entry.
/// Polls once through `req.protocol`'s entry, boxed (for callers that do not dispatch
/// themselves).
pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    struct Boxed<'a> {
        req: &'a Request,
        session: &'a mut Session,
        deadline: Instant,
        observer: Option<&'a mut dyn Observer>,
    }
    impl<'a> Visit for Boxed<'a> {
        type Output = PollFuture<'a>;
        fn visit<X: Build>(self, entry: &'static Entry) -> PollFuture<'a> {
            Box::pin(run::<X>(
                entry,
                self.req,
                self.session,
                self.deadline,
                self.observer,
            ))
        }
    }
    // Shortens the observer's object lifetime to the borrows' (a coercion `Option` cannot do).
    let observer = observer.map(|o| -> &mut dyn Observer { o });
    let v = Boxed {
        req,
        session,
        deadline,
        observer,
    };
    dispatch(req.protocol, v).await
}

/// The one poll every protocol runs: resolve as the entry says, open its link, build the
/// exchange, drive it, and let it remember what the next poll needs.
pub async fn run<X: Build>(
    entry: &'static Entry,
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let peer = resolved(entry, req, deadline).await?;
    let mut start = Start {
        params: req.params(),
        host: &req.address.host,
        peer,
        local_port: None,
        min_gap: entry.min_gap,
        deadline: deadline.into_std(),
        voice_port: req.voice_port,
        credentials: req.credentials.as_deref(),
    };
    let mut observer = observer;
    // A reborrow for the poll, the object's lifetime shortened to it (the health query
    // after it reports to the same observer); `as_deref_mut` keeps the longer object
    // lifetime, which `&mut`'s invariance then ties to the whole function.
    #[allow(clippy::option_as_ref_deref)]
    let observed = observer.as_mut().map(|o| -> &mut dyn Observer { &mut **o });
    let status = poll_link::<X>(entry, req, &mut start, session, deadline, observed).await?;
    match X::health_over_rcon(&start) {
        Some((port, password)) => {
            let addr = SocketAddr::new(peer.ip(), port);
            // Boxed: the RCON health query's future is nearly the size of the poll's, and
            // inline it would size every protocol's poll future, which the scheduler moves
            // into a box on every poll; few targets ask for it (benches/RESULTS.md, "A2S
            // poll future").
            let health = health::add(status, addr, password, start.params, deadline, observer);
            Ok(Box::pin(health).await)
        }
        None => Ok(status),
    }
}

/// [`run`]'s poll proper, over the link the entry names.
async fn poll_link<X: Build>(
    entry: &'static Entry,
    req: &Request,
    start: &mut Start<'_>,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let peer = start.peer;
    let start = &mut *start;
    match entry.link {
        Link::UdpShared => {
            let mux = req.shared_udp_for(session, X::LOCAL_PORT);
            let mut chan = UdpChannel::open(peer, mux).await?;
            // Asked of the kernel only on a socket of its own (first polls, after a failure):
            // the mux knows its port.
            if X::LOCAL_PORT {
                start.local_port = chan.local_port();
            }
            go::<X, _>(entry, start, session, &mut chan, deadline, observer).await
        }
        Link::Tcp => {
            let mut link = TcpLink::new(peer).with_proxy_header(req.proxy_protocol);
            go::<X, _>(entry, start, session, &mut link, deadline, observer).await
        }
        // Boxed: an HTTP poll's future (hyper's and rustls' handshakes) is several times the
        // size of a datagram poll's, and inline it would size every protocol's poll future,
        // which the scheduler allocates and copies on every poll. One allocation more per
        // HTTP poll, against a TCP and maybe a TLS handshake.
        Link::Http => {
            let cap = req.limits.reply_cap();
            let link = HttpLink::new(peer, req.address.host.clone(), req.tls.clone(), cap);
            Box::pin(go_owned::<X, _>(
                entry, start, session, link, deadline, observer,
            ))
            .await
        }
        // Boxed as Link::Http is, for the same reason.
        Link::UdpThenHttp => {
            let chan = UdpChannel::open(peer, req.shared_udp(session)).await?;
            let cap = req.limits.reply_cap();
            let http = HttpLink::new(peer, req.address.host.clone(), req.tls.clone(), cap);
            let link = UdpThenHttp::new(chan, http);
            Box::pin(go_owned::<X, _>(
                entry, start, session, link, deadline, observer,
            ))
            .await
        }
    }
}

/// [`go`] over a transport it owns, for a poll boxed apart.
async fn go_owned<X: Build, T: Transport>(
    entry: &Entry,
    start: &Start<'_>,
    session: &mut Session,
    mut transport: T,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    go::<X, T>(entry, start, session, &mut transport, deadline, observer).await
}

async fn go<X: Build, T: Transport>(
    entry: &Entry,
    start: &Start<'_>,
    session: &mut Session,
    transport: &mut T,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    // Polls at a short interval must keep the gap a rate-limited server needs between two
    // requests, as resends do (Cfx.re's getinfo limit, DarkPlaces' flood block, TeamSpeak's
    // flood ban).
    let gap = X::poll_gap(entry);
    // Servers that count per client address across sessions: one poll at a time per server.
    let gate = X::GAP_PER_SERVER.then(|| peer_gate::gate(start.peer));
    let mut held = match &gate {
        Some(g) => match tokio::time::timeout_at(deadline, g.lock()).await {
            Ok(guard) => Some(guard),
            Err(_) => return Err(LinkError::Timeout.into()),
        },
        None => None,
    };
    let last = held
        .as_deref()
        .copied()
        .flatten()
        .max(session.last_exchange_end);
    if let Some(end) = last.filter(|_| !gap.is_zero()) {
        tokio::time::sleep_until((end + gap).min(deadline)).await;
    }
    let mut exchange = X::build(start, session);
    let result = drive(&mut exchange, transport, deadline, entry.pacing(), observer).await;
    exchange.remember(session);
    // Only a gap reads when the exchange ended: protocols without one (A2S, SA:MP...) skip
    // the clock read, a cost each of their polls paid for nothing (benches/RESULTS.md).
    if !gap.is_zero() || held.is_some() {
        let end = Instant::now();
        session.last_exchange_end = Some(end);
        if let Some(g) = held.as_mut() {
            **g = Some(end);
        }
    }
    result
}

/// The address `entry` says `req` resolves to.
async fn resolved(entry: &Entry, req: &Request, deadline: Instant) -> Result<SocketAddr, Error> {
    let port = entry.protocol.default_port();
    match entry.resolve {
        Resolve::Plain => Ok(resolve::resolve(&req.address, port, deadline).await?),
        Resolve::MinecraftSrv => Ok(srv::resolve_minecraft(&req.address, port, deadline).await?),
        Resolve::Ipv4Only => {
            let addr = resolve::resolve(&req.address, port, deadline).await?;
            let ip = ipv4_of(addr.ip()).ok_or_else(|| Error::NotIpv4 {
                name: req.address.to_string(),
                ip: addr.ip(),
            })?;
            Ok(SocketAddr::new(IpAddr::V4(ip), addr.port()))
        }
    }
}

fn ipv4_of(ip: IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every protocol has its own entry.
    #[test]
    fn every_protocol_registered() {
        for p in Protocol::ALL {
            assert_eq!(entry(p).protocol, p);
        }
        assert_eq!(entry(Protocol::Minecraft).link, Link::Tcp);
    }

    /// The vocabulary's `http` (which the config checks the `tls*` keys against) says what
    /// the registry says: every HTTP API takes them, no plain UDP or TCP protocol does, and
    /// of the UDP-then-HTTP ones those whose API is HTTPS (Satisfactory; FiveM's
    /// `/players.json` is plain HTTP).
    #[test]
    fn http_matches_links() {
        for p in Protocol::ALL {
            let want = match entry(p).link {
                Link::Http => true,
                Link::UdpThenHttp => p == Protocol::Satisfactory,
                _ => false,
            };
            assert_eq!(p.http().is_some(), want, "{p}");
        }
    }

    /// The vocabulary's `over_tcp` (which the config checks `proxy_protocol` against) says
    /// what the registry says.
    #[test]
    fn over_tcp_matches_links() {
        for p in Protocol::ALL {
            assert_eq!(p.over_tcp(), entry(p).link == Link::Tcp, "{p}");
        }
    }
}

#[cfg(test)]
mod future_size {
    use super::*;
    use crate::target::{Address, Target};

    /// An A2S poll's future is moved into the scheduler's box on every poll, so what it holds
    /// is paid per poll (benches/RESULTS.md, "A2S poll future"). Sizes in the test profile
    /// (`--nocapture` prints them): the RCON health query, boxed, no longer sizes every poll,
    /// and the A2S exchange keeps no split bookkeeping inline.
    #[tokio::test]
    async fn a2s_poll_future() {
        let target = Target::new("t", Protocol::A2s, Address::new("127.0.0.1", Some(27015)));
        let req = Request::from(&target);
        let mut session = Session::default();
        let deadline = Instant::now();
        let run = run::<A2s>(&A2S, &req, &mut session, deadline, None);
        let run_size = std::mem::size_of_val(&run);
        drop(run);
        let peer = SocketAddr::from(([127, 0, 0, 1], 27015));
        let mut start = Start {
            params: req.params(),
            host: &req.address.host,
            peer,
            local_port: None,
            min_gap: A2S.min_gap,
            deadline: deadline.into_std(),
            voice_port: None,
            credentials: None,
        };
        let link = poll_link::<A2s>(&A2S, &req, &mut start, &mut session, deadline, None);
        let link_size = std::mem::size_of_val(&link);
        drop(link);
        let secret = Secret::new(String::new());
        let health = health::add(
            Status::default(),
            peer,
            secret,
            req.params(),
            deadline,
            None,
        );
        let health_size = std::mem::size_of_val(&health);
        drop(health);
        let exchange = std::mem::size_of::<A2s>();
        eprintln!(
            "run {run_size}, poll_link {link_size}, health::add {health_size}, A2s {exchange}"
        );
        // `run` holds the link's future and the few values it keeps across it, no more.
        assert!(
            run_size <= link_size + 512,
            "run {run_size}, poll_link {link_size}"
        );
        // 440 before A2S_PLAYER was pipelined; its remembered list challenge and the request
        // sent ahead add the rest.
        assert!(exchange <= 512, "A2s is {exchange} bytes");
    }
}
