//! The target vocabulary: what a poll is aimed at and the defaults every layer shares.
//!
//! [`Protocol`] (with its registry facts such as the default port), [`Address`] (pure
//! parsing, no resolution), the per-poll [`Limits`] and the configured [`Target`] live here,
//! below every other module, so that config, scheduler, http, metrics, query and simulate can
//! all name a target without reaching into each other. Each default is stated once, here:
//! [`DEFAULT_INTERVAL`], [`DEFAULT_TIMEOUT`], [`DEFAULT_ENCODING`], [`Limits::default`],
//! each protocol's default port in its spec (`protocol/<p>/spec.rs`).
//!
//! Built without the `daemon` feature: no tokio, no sockets.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::protocol::credentials::{Console, CredentialKey, Credentials, Rcon};
pub use crate::protocol::limits::{Limits, DEFAULT_ENCODING};
pub use crate::protocol::proxy_header::ProxyProtocol;
pub use crate::protocol::spec::HttpScheme;
use crate::protocol::spec::{Spec, Visit};

/// How often a target is polled unless the config says otherwise (`exporter.interval`).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(15);
/// Deadline for one whole poll unless the config says otherwise (`exporter.timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest UDP payload: unsplit replies can be far larger than 1400 bytes (Rust sends up
/// to 64 KiB), so every receive buffer is this big.
pub const MAX_DATAGRAM: usize = 65_536;

/// Lists the protocols, one line each: the variant, its doc, and the module under
/// `protocol/` whose `SPEC` and `Exchange` it is. Generates the enum, its `ALL` (in the
/// listed order, the one `--help` and every "for each protocol" test use), `spec` and
/// `dispatch`.
macro_rules! protocols {
    ($($(#[$doc:meta])* $variant:ident => $($module:ident)::+;)+) => {
        /// The query protocols, by their specs' ids (config, command line, `module=`, the
        /// `protocol` label).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Protocol {
            $($(#[$doc])* $variant,)+
        }

        impl Protocol {
            /// Every protocol, in the listed order.
            pub const ALL: [Protocol; [$(stringify!($variant)),+].len()] = [$(Self::$variant),+];

            /// The protocol's facts, from its own folder (`protocol/<p>/spec.rs`).
            pub const fn spec(self) -> &'static Spec {
                match self {
                    $(Self::$variant => &crate::protocol::$($module)::+::SPEC,)+
                }
            }

            /// Calls `v` with the protocol's exchange type and spec: the one table from a
            /// protocol to its exchange, monomorphized per protocol (no box, no vtable).
            pub fn dispatch<V: Visit>(self, v: V) -> V::Output {
                match self {
                    $(Self::$variant => v.visit::<crate::protocol::$($module)::+::Exchange>(
                        &crate::protocol::$($module)::+::SPEC,
                    ),)+
                }
            }
        }
    };
}

protocols! {
    /// Valve A2S (Source and GoldSrc), UDP.
    A2s => a2s::spec;
    /// Minecraft Java server list ping (1.7+ with legacy fallbacks), TCP.
    Minecraft => minecraft::slp_spec;
    /// Minecraft Query (GameSpy4), UDP.
    MinecraftQuery => minecraft::query_spec;
    /// Minecraft Bedrock Edition (RakNet unconnected ping), UDP.
    MinecraftBedrock => bedrock::spec;
    /// SA:MP and open.mp query, UDP.
    Samp => samp::spec;
    /// Mumble voice server ping, UDP.
    Mumble => mumble::spec;
    /// Quake 3-engine `getstatus` (ioquake3, OpenArena, Urban Terror, ET, Call of Duty,
    /// DarkPlaces games...), UDP.
    Quake3 => quake3::spec;
    /// Quake 2-engine `status` (Quake 2, Alien Arena, Daikatana), UDP.
    Quake2 => quake2::spec;
    /// QuakeWorld `status` (mvdsv, FTE, ezQuake; Quake 1 servers of the QuakeWorld line), UDP.
    Quake1 => quake1::spec;
    /// Teeworlds 0.6/0.7 and DDNet server info, UDP.
    Teeworlds => teeworlds::spec;
    /// GameSpy 1 `\status\` (Unreal Tournament, Battlefield 1942, Halo, netPanzer...), UDP.
    Gamespy1 => gamespy1::spec;
    /// GameSpy 2 `FE FD 00` (Battlefield Vietnam and 2, Halo, America's Army, SWAT 4...), UDP.
    Gamespy2 => gamespy2::spec;
    /// GameSpy 3 query (Battlefield 2 and 2142, Unreal Tournament 3, Crysis, ArmA...), UDP.
    Gamespy3 => gamespy3::spec;
    /// All-Seeing Eye (Multi Theft Auto, Far Cry, Chrome...), UDP.
    Ase => ase::spec;
    /// Unreal Engine 2 query (UT2003, UT2004, Killing Floor, Red Orchestra...), UDP.
    Unreal2 => unreal2::spec;
    /// id Tech 4 `getInfo` (Doom 3, Quake 4, Prey, ETQW, Wolfenstein 2009), UDP.
    Doom3 => doom3::spec;
    /// Terraria with TShock: its REST API (`/v2/server/status`), HTTP or HTTPS.
    Terraria => terraria::spec;
    /// Palworld's REST API (`/v1/api/info`, `metrics`, `players`), HTTP basic auth.
    Palworld => palworld::spec;
    /// FiveM and RedM (Cfx.re) `getinfo` on the game port, UDP.
    Fivem => fivem::spec;
    /// Satisfactory's Lightweight Query on the game port, UDP.
    Satisfactory => satisfactory::spec;
    /// TeamSpeak 3 ServerQuery, TCP.
    Teamspeak3 => teamspeak3::spec;
    /// Factorio over Source RCON (`/players online count`), TCP: the game has no query.
    Factorio => factorio::spec;
    /// Frostbite query (`serverInfo`: Battlefield 3, 4, Hardline, Bad Company 2, Medal of
    /// Honor 2010 and Warfighter), TCP.
    Battlefield => battlefield::spec;
    /// ARK: Survival Ascended over its RCON console (`ListPlayers`), TCP: the game answers
    /// no query.
    Arkrcon => arkrcon::spec;
    /// Farming Simulator's dedicated-server stats feed (XML over HTTP, `code_file`).
    Farmingsimulator => farmingsimulator::spec;
    /// HexenWorld `status` (Hexen II's QuakeWorld-derived server), UDP.
    Hexen2 => hexen2::spec;
    /// Assetto Corsa's server (Kunos acServer, AssettoServer): its HTTP lobby pages `/INFO` and
    /// `/JSON|`.
    Assettocorsa => assettocorsa::spec;
    /// Eco's web API (`/frontpage`).
    Eco => eco::spec;
    /// Build and Shoot / Ace of Spades Classic: the status server's `/json` (piqueserver).
    Buildandshoot => buildandshoot::spec;
    /// Halo Online with ElDewrito: the info server's JSON (game port + 1).
    Eldewrito => eldewrito::spec;
    /// OpenTTD game info (`CLIENT_GAME_INFO`, OpenTTD 12 and later), TCP.
    Openttd => openttd::spec;
    /// Armagetron Advanced server browser query (`big_request`), UDP.
    Armagetron => armagetron::spec;
    /// Just Cause 2 Multiplayer: GameSpy 3's handshake, its own request tail and reply, UDP.
    Jc2mp => jc2mp::spec;
    /// Vice City Multiplayer (VC:MP 0.4): SA:MP's query with its own magic words, UDP.
    Vcmp => vcmp::spec;
    /// CS2D's server info query (with the player list), UDP.
    Cs2d => cs2d::spec;
    /// TeamSpeak 2 query (`sel`, `si`, `pl`), TCP.
    Teamspeak2 => teamspeak2::spec;
    /// rFactor query (`rF_S`: rFactor, Arca Sim Racing '08), UDP.
    Rfactor => rfactor::spec;
    /// Frontlines: Fuel of War's info query (`FLSQ`, A2S framing), UDP.
    Ffow => ffow::spec;
    /// Nadeo's XML-RPC remote control, GBXRemote 2 (Trackmania Forever, Trackmania 2,
    /// Shootmania), TCP.
    Nadeo => nadeo::spec;
    /// Tribes 1 server query (`b` request, length-prefixed strings), UDP.
    Tribes1 => tribes1::spec;
    /// Starsiege server query: Tribes 1's with the `r` request byte, UDP.
    Starsiege => tribes1::starsiege_spec;
    /// Savage 2: A Tortured Soul's server query (`01`), UDP.
    Savage2 => savage2::spec;
    /// Mafia II Multiplayer query (`M2MP`, the game port + 1), UDP.
    Mafia2mp => mafia2mp::spec;
    /// Mafia II Online query: Mafia II Multiplayer's with its own magic and pings, UDP.
    Mafia2online => mafia2online::spec;
    /// Soldat's file server (`STARTFILES logs/gamestat.txt`, the game port + 10), TCP.
    Soldat => soldat::spec;
    /// Kerbal Space Program with DarkMultiPlayer: the server's HTTP status page (JSON).
    Kspdmp => kspdmp::spec;
    /// Hytale: the Nitrado Query plugin's `/Nitrado/Query` page (JSON, on the WebServer
    /// plugin's port).
    Hytale => hytale::spec;
    /// StarMade's server info query (typed parameters), TCP.
    Starmade => starmade::spec;
    /// The Cube 2 engine's server-info ping (Red Eclipse, Sauerbraten; the game port + 1), UDP.
    Cube2 => cube2::spec;
    /// Ventrilo 3's status query (scrambled packets, a reply in parts), UDP.
    Ventrilo => ventrilo::spec;
    /// BZFlag's bzfs: the hello, MsgQueryGame and MsgQueryPlayers on the game port, TCP.
    Bzflag => bzflag::spec;
    /// The NetQuake control query (Quake 1: QuakeSpasm, Ironwail, DarkPlaces), UDP.
    Netquake => netquake::spec;
}

impl Protocol {
    /// Every protocol's id, for serde's "expected one of" (the config's error for an unknown
    /// protocol).
    const IDS: [&'static str; Self::ALL.len()] = {
        let mut ids = [""; Self::ALL.len()];
        let mut i = 0;
        while i < ids.len() {
            ids[i] = Self::ALL[i].spec().id;
            i += 1;
        }
        ids
    };

    pub fn as_str(self) -> &'static str {
        self.spec().id
    }

    /// The port used when an address names none (Minecraft tries SRV first).
    pub fn default_port(self) -> u16 {
        self.spec().default_port
    }

    pub fn from_name(name: &str) -> Option<Protocol> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Every id, comma-separated, for error messages ("one of: ...").
    pub fn names() -> String {
        Self::IDS.join(", ")
    }

    /// Whether the protocol talks over a TCP stream (only these can carry a PROXY protocol
    /// header). A new TCP protocol opens its link with
    /// `TcpLink::new(addr).with_proxy_header(req.proxy_protocol)`.
    pub fn over_tcp(self) -> bool {
        self.spec().over_tcp()
    }

    /// Whether the protocol is an HTTP API, and whether TLS is optional there or always on.
    /// The config accepts the `tls*` keys only where this is `Some`.
    pub fn http(self) -> Option<HttpScheme> {
        self.spec().http
    }

    /// The credential keys a target of this protocol may set; any other is a config error.
    pub fn credential_keys(self) -> &'static [CredentialKey] {
        self.spec().credential_keys
    }

    /// The credential key a target of this protocol must set.
    pub fn required_credential(self) -> Option<CredentialKey> {
        self.spec().required_credential
    }

    /// The port RCON listens on when `rcon.port` is not given.
    pub fn default_rcon_port(self) -> u16 {
        self.spec().default_rcon_port
    }

    /// The ids of the protocols whose targets select a virtual server by `voice_port`
    /// ([`Spec::voice_port`]), for error messages: "a", "a and b", "a, b and c".
    pub fn voice_names() -> String {
        let ids: Vec<&str> = Self::ALL
            .into_iter()
            .filter(|p| p.spec().voice_port.is_some())
            .map(Self::as_str)
            .collect();
        match ids.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => ids.concat(),
        }
    }

    /// The TCP protocols' ids, comma-separated, for error messages.
    pub fn tcp_names() -> String {
        let tcp: Vec<&str> = Self::ALL
            .into_iter()
            .filter(|p| p.over_tcp())
            .map(Self::as_str)
            .collect();
        tcp.join(", ")
    }
}

impl Serialize for Protocol {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Protocol {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Self::from_name(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, &Self::IDS))
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an HTTP target's connection is secured (`tls`, `tls_fingerprint`, `tls_insecure`).
/// Verification is on unless the target says otherwise in so many words.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Tls {
    /// Plain HTTP.
    #[default]
    Off,
    /// HTTPS, the certificate verified against the built-in roots for the host name.
    Verify,
    /// HTTPS, the leaf certificate's SHA-256 must be this (`tls_fingerprint = "sha256:..."`):
    /// for self-signed certificates. Boxed: rare, and `Target` stays small.
    Pinned(Box<[u8; 32]>),
    /// HTTPS with no verification at all (`tls_insecure = true`).
    Insecure,
}

impl Tls {
    /// The setting a target gets when it says nothing.
    pub fn default_for(scheme: HttpScheme) -> Tls {
        match scheme {
            HttpScheme::Either => Tls::Off,
            HttpScheme::HttpsOnly => Tls::Verify,
        }
    }

    pub fn enabled(&self) -> bool {
        !matches!(self, Tls::Off)
    }

    /// A `tls_fingerprint`: `sha256:` and 32 bytes in hex, with or without colons between
    /// them (the config and `query --tls-fingerprint` read it alike).
    pub fn parse_fingerprint(text: &str) -> Option<[u8; 32]> {
        let hex: Vec<u8> = text
            .strip_prefix("sha256:")?
            .bytes()
            .filter(|b| *b != b':')
            .collect();
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(hex.chunks(2)) {
            let digit = |c: u8| char::from(c).to_digit(16);
            *byte = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Some(out)
    }

    /// The mode a [`Target`] keeps (the pin itself is kept apart, see [`TlsMode`]).
    pub fn mode(&self) -> TlsMode {
        match self {
            Tls::Off => TlsMode::Off,
            Tls::Verify => TlsMode::Verify,
            Tls::Pinned(_) => TlsMode::Pinned,
            Tls::Insecure => TlsMode::Insecure,
        }
    }
}

/// [`Tls`] without the pin, one byte: what [`Target`] holds, in what was padding (a full
/// `Tls` would take 16 bytes and push every target into a larger allocation block). A
/// pinned target's fingerprint travels with its credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TlsMode {
    #[default]
    Off,
    Verify,
    Pinned,
    Insecure,
}

/// Per-player series a target publishes by default when `players = true`.
pub const DEFAULT_MAX_PLAYER_SERIES: u32 = 100;

/// Opt-in per-player series (`players = true` or `players = { max_series = N }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerSeries {
    /// Players published per target, in the server's list order; the rest are only counted
    /// (`gameserver_player_series_dropped`).
    /// (`u32`: the config caps it at 1000, and 8 bytes less keep `Target` in its block.)
    pub max_series: u32,
}

impl Default for PlayerSeries {
    fn default() -> Self {
        PlayerSeries {
            max_series: DEFAULT_MAX_PLAYER_SERIES,
        }
    }
}

/// One target to poll, with every default applied: two targets compare equal exactly when
/// polling them is the same job, which is what reload-by-diff needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub name: String,
    pub protocol: Protocol,
    pub address: Address,
    pub interval: Duration,
    pub timeout: Duration,
    pub encoding: &'static encoding_rs::Encoding,
    /// Extra labels on every series of this target, sorted by name.
    pub labels: BTreeMap<String, String>,
    pub limits: Limits,
    /// The game preset the config named (`game = "..."`), by id. Its protocol and default
    /// port are already in the fields above; its quirks are looked up by this id
    /// ([`crate::games::Game::find`]).
    pub game: Option<&'static str>,
    /// Fetch the player list and publish per-player series (`players = ...`); `None`: off.
    pub players: Option<PlayerSeries>,
    /// Rules (server variables) to publish, by name, in config order (`rules = [...]`);
    /// empty: rules are not fetched.
    pub rules: Box<[String]>,
    /// Send a PROXY protocol header first on every connection (TCP protocols only; the
    /// config refuses it elsewhere); `None`: no header.
    pub proxy_protocol: Option<ProxyProtocol>,
    /// HTTP protocols: TLS and how the certificate is checked ([`Tls::default_for`] the
    /// protocol's [`HttpScheme`] unless configured).
    pub tls: TlsMode,
    /// TeamSpeak 3 and 2: the virtual server to select (`use port=`, `sel`), by its voice
    /// port (`voice_port = N`; the config refuses it elsewhere); `None`: the protocol's
    /// default (9987, 8767).
    pub voice_port: Option<std::num::NonZeroU16>,
    /// The capacity to publish when the server reports none (`max_players = N`: ARK:
    /// Survival Ascended and Factorio say nothing of theirs over RCON); a reported capacity
    /// wins. 16 bits: no server has more slots, and 32 made `Target` outgrow its block.
    pub max_players: Option<std::num::NonZeroU16>,
    /// What the target logs in with (`password_file`, `rcon`, ...); behind an `Arc` so
    /// that `Target` stays small and every poll's request shares it.
    pub credentials: Option<Arc<Credentials>>,
}

impl Target {
    /// A target with every default: [`DEFAULT_INTERVAL`], [`DEFAULT_TIMEOUT`],
    /// [`DEFAULT_ENCODING`], no extra labels, [`Limits::default`], no player series, no rules,
    /// no PROXY protocol header. Callers override fields
    /// with struct update syntax (`Target { timeout, ..Target::new(..) }`).
    pub fn new(name: impl Into<String>, protocol: Protocol, address: Address) -> Target {
        Target {
            name: name.into(),
            protocol,
            address,
            interval: DEFAULT_INTERVAL,
            timeout: DEFAULT_TIMEOUT,
            encoding: DEFAULT_ENCODING,
            labels: BTreeMap::new(),
            limits: Limits::default(),
            game: None,
            players: None,
            rules: Box::default(),
            proxy_protocol: None,
            tls: protocol.http().map_or(Tls::Off, Tls::default_for).mode(),
            voice_port: None,
            max_players: None,
            credentials: None,
        }
    }
}

/// A target address as an operator writes it: `host`, `host:port`, `1.2.3.4:27015`,
/// `[2001:db8::1]:27015` or a bare IPv6 literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address {
    /// Shared, not copied: every poll's request and the config's and the task's copies of
    /// the target point at one string (a poll cloned it before: one allocation per poll).
    pub host: Arc<str>,
    pub port: Option<u16>,
    /// `host` as an IPv4 literal (other than 0.0.0.0), parsed once here rather than on every
    /// poll's resolution (363 instructions of an A2S poll's 17,500: benches/RESULTS.md).
    /// Four bytes, so that `Target` keeps its size; other hosts are parsed as before. A
    /// function of `host` alone: the derived equality and hash (reload diffing) mean what
    /// they meant.
    v4: Option<NonZeroU32>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("address is empty")]
    Empty,
    #[error("invalid port {0:?}")]
    Port(String),
    #[error("invalid host {0:?}")]
    Host(String),
}

impl Address {
    pub fn parse(s: &str) -> Result<Address, AddressError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(AddressError::Empty);
        }
        if let Some(rest) = s.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| AddressError::Host(s.to_string()))?;
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(AddressError::Host(host.to_string()));
            }
            let port = match after {
                "" => None,
                p => Some(parse_port(p.strip_prefix(':').unwrap_or(p))?),
            };
            return Ok(Address::new(host, port));
        }
        if s.parse::<std::net::Ipv6Addr>().is_ok() {
            return Ok(Address::new(s, None));
        }
        let (host, port) = match s.rsplit_once(':') {
            Some((h, p)) => (h, Some(parse_port(p)?)),
            None => (s, None),
        };
        let valid = !host.is_empty()
            && host.len() <= 253
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        if !valid {
            return Err(AddressError::Host(host.to_string()));
        }
        Ok(Address::new(host, port))
    }

    /// An address of a host already checked (or an IP literal written out), and its port.
    pub fn new(host: impl Into<Arc<str>>, port: Option<u16>) -> Address {
        let host: Arc<str> = host.into();
        let v4 = host
            .parse::<Ipv4Addr>()
            .ok()
            .and_then(|ip| NonZeroU32::new(ip.to_bits()));
        Address { host, port, v4 }
    }

    /// The host as an IP literal, when it is one (no resolution needed).
    pub fn ip(&self) -> Option<IpAddr> {
        match self.v4 {
            Some(bits) => Some(IpAddr::V4(Ipv4Addr::from_bits(bits.get()))),
            None => self.host.parse().ok(),
        }
    }
}

fn parse_port(p: &str) -> Result<u16, AddressError> {
    match p.parse::<u16>() {
        Ok(0) | Err(_) => Err(AddressError::Port(p.to_string())),
        Ok(n) => Ok(n),
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v6 = self.host.contains(':');
        match (self.port, v6) {
            (Some(p), true) => write!(f, "[{}]:{p}", self.host),
            (Some(p), false) => write!(f, "{}:{p}", self.host),
            (None, _) => f.write_str(&self.host),
        }
    }
}

impl std::str::FromStr for Address {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Address::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every target of a fleet has one, shared by the config and its task: at most 176 bytes
    /// on 64-bit targets, so `Arc<Target>` takes a 192-byte block (it took 224 at 192 bytes).
    #[test]
    fn target_is_small() {
        let size = std::mem::size_of::<Target>();
        assert!(size <= 176, "Target is {size} bytes");
    }

    /// The host's IP literal, kept from construction for IPv4 and parsed for the rest, is
    /// what parsing the host says; two addresses of one host are equal however made.
    #[test]
    fn ip_literals() {
        for (text, ip) in [
            ("127.0.0.1:27015", Some("127.0.0.1")),
            ("0.0.0.0", Some("0.0.0.0")),
            ("[::1]:7777", Some("::1")),
            ("::ffff:10.0.0.1", Some("::ffff:10.0.0.1")),
            ("mc.example.org:25565", None),
            ("1.2.3", None),
        ] {
            let a = Address::parse(text).unwrap();
            let want = ip.map(|i| i.parse::<IpAddr>().unwrap());
            assert_eq!(a.ip(), want, "{text}");
            assert_eq!(Address::new(a.host.clone(), a.port), a, "{text}");
        }
        assert!(std::mem::size_of::<Address>() <= 24);
    }

    /// Every form an operator may write parses, and prints back the same way.
    #[test]
    fn forms() {
        for (text, host, port) in [
            ("mc.example.org", "mc.example.org", None),
            ("mc.example.org:25566", "mc.example.org", Some(25566)),
            ("127.0.0.1:27015", "127.0.0.1", Some(27015)),
            ("[::1]:7777", "::1", Some(7777)),
            ("::1", "::1", None),
            ("[2001:db8::1]", "2001:db8::1", None),
        ] {
            let a = Address::parse(text).unwrap();
            assert_eq!((&*a.host, a.port), (host, port), "{text}");
            if text != "[2001:db8::1]" {
                assert_eq!(a.to_string(), text);
            }
        }
    }

    /// Bad ports and hosts are errors, not panics.
    #[test]
    fn rejects() {
        assert_eq!(Address::parse(""), Err(AddressError::Empty));
        assert!(matches!(Address::parse("a:0"), Err(AddressError::Port(_))));
        assert!(matches!(
            Address::parse("a:70000"),
            Err(AddressError::Port(_))
        ));
        assert!(matches!(
            Address::parse("a b:1"),
            Err(AddressError::Host(_))
        ));
        assert!(matches!(
            Address::parse("[zz]:1"),
            Err(AddressError::Host(_))
        ));
        assert!(matches!(
            Address::parse(":27015"),
            Err(AddressError::Host(_))
        ));
    }
}
