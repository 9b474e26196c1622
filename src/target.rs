//! The target vocabulary: what a poll is aimed at and the defaults every layer shares.
//!
//! [`Protocol`] (with its registry facts such as the default port), [`Address`] (pure
//! parsing, no resolution), the per-poll [`Limits`] and the configured [`Target`] live here,
//! below every other module, so that config, scheduler, http, metrics, query and simulate can
//! all name a target without reaching into each other. Each default is stated once, here:
//! [`DEFAULT_INTERVAL`], [`DEFAULT_TIMEOUT`], [`DEFAULT_ENCODING`], [`Limits::default`],
//! [`Protocol::default_port`].
//!
//! Built without the `daemon` feature: no tokio, no sockets.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::secret::Secret;

/// How often a target is polled unless the config says otherwise (`exporter.interval`).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(15);
/// Deadline for one whole poll unless the config says otherwise (`exporter.timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Code page for protocols that send legacy text (SA:MP) unless a target names another:
/// what Western servers use, and a superset of Latin-1, so nothing fails to decode.
pub const DEFAULT_ENCODING: &encoding_rs::Encoding = encoding_rs::WINDOWS_1252;

/// The largest UDP payload: unsplit replies can be far larger than 1400 bytes (Rust sends up
/// to 64 KiB), so every receive buffer is this big.
pub const MAX_DATAGRAM: usize = 65_536;

/// The query protocols, by the ids used in the config and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Protocol {
    /// Valve A2S (Source and GoldSrc), UDP.
    #[serde(rename = "a2s")]
    A2s,
    /// Minecraft Java server list ping (1.7+ with legacy fallbacks), TCP.
    #[serde(rename = "minecraft")]
    Minecraft,
    /// Minecraft Query (GameSpy4), UDP.
    #[serde(rename = "minecraft-query")]
    MinecraftQuery,
    /// Minecraft Bedrock Edition (RakNet unconnected ping), UDP.
    #[serde(rename = "minecraft-bedrock")]
    MinecraftBedrock,
    /// SA:MP and open.mp query, UDP.
    #[serde(rename = "samp")]
    Samp,
    /// Mumble voice server ping, UDP.
    #[serde(rename = "mumble")]
    Mumble,
    /// Quake 3-engine `getstatus` (ioquake3, OpenArena, Urban Terror, ET, Call of Duty,
    /// DarkPlaces games...), UDP.
    #[serde(rename = "quake3")]
    Quake3,
    /// Teeworlds 0.6/0.7 and DDNet server info, UDP.
    #[serde(rename = "teeworlds")]
    Teeworlds,
    /// GameSpy 3 query (Battlefield 2 and 2142, Unreal Tournament 3, Crysis, ArmA...), UDP.
    #[serde(rename = "gamespy3")]
    Gamespy3,
    /// All-Seeing Eye (Multi Theft Auto, Far Cry, Chrome...), UDP.
    #[serde(rename = "ase")]
    Ase,
    /// Unreal Engine 2 query (UT2003, UT2004, Killing Floor, Red Orchestra...), UDP.
    #[serde(rename = "unreal2")]
    Unreal2,
    /// id Tech 4 `getInfo` (Doom 3, Quake 4, Prey, ETQW, Wolfenstein 2009), UDP.
    #[serde(rename = "doom3")]
    Doom3,
    /// GameSpy 1 `\status\` (Unreal Tournament, Battlefield 1942, Halo, netPanzer...), UDP.
    #[serde(rename = "gamespy1")]
    Gamespy1,
    /// GameSpy 2 `FE FD 00` (Battlefield Vietnam and 2, Halo, America's Army, SWAT 4...), UDP.
    #[serde(rename = "gamespy2")]
    Gamespy2,
    /// Terraria with TShock: its REST API (`/v2/server/status`), HTTP or HTTPS.
    #[serde(rename = "terraria")]
    Terraria,
    /// Palworld's REST API (`/v1/api/info`, `metrics`, `players`), HTTP basic auth.
    #[serde(rename = "palworld")]
    Palworld,
    /// FiveM and RedM (Cfx.re) `getinfo` on the game port, UDP.
    #[serde(rename = "fivem")]
    Fivem,
    /// Satisfactory's Lightweight Query on the game port, UDP.
    #[serde(rename = "satisfactory")]
    Satisfactory,
    /// TeamSpeak 3 ServerQuery, TCP.
    #[serde(rename = "teamspeak3")]
    Teamspeak3,
    /// Factorio over Source RCON (`/players online count`), TCP: the game has no query.
    #[serde(rename = "factorio")]
    Factorio,
}

impl Protocol {
    pub const ALL: [Protocol; 20] = [
        Protocol::A2s,
        Protocol::Minecraft,
        Protocol::MinecraftQuery,
        Protocol::MinecraftBedrock,
        Protocol::Samp,
        Protocol::Mumble,
        Protocol::Quake3,
        Protocol::Teeworlds,
        Protocol::Gamespy1,
        Protocol::Gamespy2,
        Protocol::Gamespy3,
        Protocol::Ase,
        Protocol::Unreal2,
        Protocol::Doom3,
        Protocol::Terraria,
        Protocol::Palworld,
        Protocol::Fivem,
        Protocol::Satisfactory,
        Protocol::Teamspeak3,
        Protocol::Factorio,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::A2s => "a2s",
            Protocol::Minecraft => "minecraft",
            Protocol::MinecraftQuery => "minecraft-query",
            Protocol::MinecraftBedrock => "minecraft-bedrock",
            Protocol::Samp => "samp",
            Protocol::Mumble => "mumble",
            Protocol::Quake3 => "quake3",
            Protocol::Teeworlds => "teeworlds",
            Protocol::Gamespy3 => "gamespy3",
            Protocol::Ase => "ase",
            Protocol::Unreal2 => "unreal2",
            Protocol::Doom3 => "doom3",
            Protocol::Gamespy1 => "gamespy1",
            Protocol::Gamespy2 => "gamespy2",
            Protocol::Terraria => "terraria",
            Protocol::Palworld => "palworld",
            Protocol::Fivem => "fivem",
            Protocol::Satisfactory => "satisfactory",
            Protocol::Teamspeak3 => "teamspeak3",
            Protocol::Factorio => "factorio",
        }
    }

    /// The port used when an address names none (Minecraft tries SRV first).
    pub fn default_port(self) -> u16 {
        match self {
            Protocol::A2s => 27015,
            Protocol::Minecraft | Protocol::MinecraftQuery => 25565,
            Protocol::MinecraftBedrock => 19132,
            Protocol::Samp => 7777,
            Protocol::Mumble => 64738,
            Protocol::Quake3 => 27960,
            Protocol::Teeworlds => 8303,
            // Battlefield 2's query port; most GameSpy 3 games use their own.
            Protocol::Gamespy3 => 29900,
            // Multi Theft Auto's: its game port 22003 + 123.
            Protocol::Ase => 22126,
            // UT2004's query port: its game port 7777 + 1.
            Protocol::Unreal2 => 7778,
            Protocol::Doom3 => 27666,
            // Unreal Tournament's query port (its game port 7777 + 1), the family's most
            // common server; the other games' ports are their presets' (src/games).
            Protocol::Gamespy1 => 7778,
            // Battlefield 2's query port, the family's most common; presets carry the rest.
            Protocol::Gamespy2 => 29900,
            Protocol::Terraria => 7878,
            Protocol::Palworld => 8212,
            Protocol::Fivem => 30120,
            Protocol::Satisfactory => 7777,
            Protocol::Teamspeak3 => 10011,
            // Factorio has no default RCON port (`--rcon-port` is required to turn RCON
            // on); 27015, Source's, is what its wiki and hosting panels use.
            Protocol::Factorio => 27015,
        }
    }

    pub fn from_name(name: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Every id, comma-separated, for error messages ("one of: ...").
    pub fn names() -> String {
        Protocol::ALL.map(Protocol::as_str).join(", ")
    }

    /// Whether the protocol talks over a TCP stream (only these can carry a PROXY protocol
    /// header). The query registry's `Link::Tcp` entries; a test there keeps the two in step.
    /// A new TCP protocol answers true here and opens its link with
    /// `TcpLink::new(addr).with_proxy_header(req.proxy_protocol)`.
    pub fn over_tcp(self) -> bool {
        match self {
            Protocol::Minecraft | Protocol::Teamspeak3 | Protocol::Factorio => true,
            Protocol::A2s
            | Protocol::MinecraftQuery
            | Protocol::MinecraftBedrock
            | Protocol::Samp
            | Protocol::Mumble
            | Protocol::Quake3
            | Protocol::Teeworlds
            | Protocol::Gamespy3
            | Protocol::Ase => false,
            Protocol::Unreal2 | Protocol::Doom3 => false,
            Protocol::Gamespy1 | Protocol::Gamespy2 => false,
            Protocol::Terraria | Protocol::Palworld => false,
            Protocol::Fivem | Protocol::Satisfactory => false,
        }
    }

    /// Whether the protocol is an HTTP API, and whether TLS is optional there (`tls = true`
    /// turns it on) or always on. The query registry's `Link::Http` entries; a test there
    /// keeps the two in step. The config accepts the `tls*` keys only where this is `Some`.
    pub fn http(self) -> Option<HttpScheme> {
        match self {
            Protocol::Terraria | Protocol::Palworld => Some(HttpScheme::Either),
            // Its HTTPS API (with an API token), after the Lightweight Query.
            Protocol::Satisfactory => Some(HttpScheme::HttpsOnly),
            Protocol::A2s
            | Protocol::Minecraft
            | Protocol::MinecraftQuery
            | Protocol::MinecraftBedrock
            | Protocol::Samp
            | Protocol::Mumble
            | Protocol::Quake3
            | Protocol::Teeworlds
            | Protocol::Gamespy1
            | Protocol::Gamespy2
            | Protocol::Gamespy3
            | Protocol::Ase
            | Protocol::Unreal2
            | Protocol::Doom3
            | Protocol::Fivem
            | Protocol::Teamspeak3
            | Protocol::Factorio => None,
        }
    }

    /// The credential keys a target of this protocol may set (`username`, `password_file`,
    /// ...); any other is a config error. Empty for protocols that never log in.
    pub fn credential_keys(self) -> &'static [CredentialKey] {
        match self {
            // Server health over RCON, next to the status ping (docs/protocols/minecraft.md).
            Protocol::Minecraft => &[CredentialKey::Rcon],
            // TShock's REST token, a query parameter.
            Protocol::Terraria => &[CredentialKey::Token],
            // Basic auth; the user is always `admin`.
            Protocol::Palworld => &[CredentialKey::Password],
            // An optional ServerQuery login (`login <username> <password>`).
            Protocol::Teamspeak3 => &[CredentialKey::Username, CredentialKey::Password],
            // The HTTPS API's bearer token (`server.GenerateAPIToken`).
            Protocol::Satisfactory => &[CredentialKey::ApiToken],
            // The RCON password (`--rcon-password`); the address is the RCON port.
            Protocol::Factorio => &[CredentialKey::Password],
            Protocol::A2s
            | Protocol::MinecraftQuery
            | Protocol::MinecraftBedrock
            | Protocol::Samp
            | Protocol::Mumble
            | Protocol::Quake3
            | Protocol::Teeworlds
            | Protocol::Gamespy1
            | Protocol::Gamespy2
            | Protocol::Gamespy3
            | Protocol::Ase
            | Protocol::Unreal2
            | Protocol::Doom3
            | Protocol::Fivem => &[],
        }
    }

    /// The credential key a target of this protocol must set: the protocol has nothing to
    /// ask without it (Factorio answers only over RCON).
    pub fn required_credential(self) -> Option<CredentialKey> {
        match self {
            Protocol::A2s
            | Protocol::Minecraft
            | Protocol::MinecraftQuery
            | Protocol::MinecraftBedrock
            | Protocol::Samp
            | Protocol::Mumble
            | Protocol::Quake3
            | Protocol::Teeworlds
            | Protocol::Gamespy1
            | Protocol::Gamespy2
            | Protocol::Gamespy3
            | Protocol::Ase
            | Protocol::Unreal2
            | Protocol::Doom3 => None,
            Protocol::Terraria | Protocol::Palworld => None,
            Protocol::Fivem | Protocol::Satisfactory | Protocol::Teamspeak3 => None,
            // Factorio answers nothing without its RCON password, but a target without
            // `password_file` is still valid config (as the example's, whose file does not
            // exist on every machine that checks it): its polls fail at once, before
            // connecting, as `auth_refused` naming the missing key.
            Protocol::Factorio => None,
        }
    }

    /// The port RCON listens on when `rcon.port` is not given: Minecraft's `rcon.port`
    /// default (25575), else Source's (27015).
    pub fn default_rcon_port(self) -> u16 {
        match self {
            Protocol::Minecraft => 25575,
            _ => 27015,
        }
    }

    /// The TCP protocols' ids, comma-separated, for error messages.
    pub fn tcp_names() -> String {
        let tcp: Vec<&str> = Protocol::ALL
            .into_iter()
            .filter(|p| p.over_tcp())
            .map(Protocol::as_str)
            .collect();
        tcp.join(", ")
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The PROXY protocol version a TCP target's server (or the proxy in front of it) expects
/// before the query's first byte (`proxy_protocol = "v1" | "v2"`). What each sends:
/// `protocol::proxy_header` and docs/proxy-protocol.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyProtocol {
    /// The text header: `PROXY TCP4|TCP6 <our address> <server address> <ports>\r\n`.
    V1,
    /// The binary header with the LOCAL command: "a health check, use the real addresses".
    V2,
}

impl ProxyProtocol {
    pub const ALL: [ProxyProtocol; 2] = [ProxyProtocol::V1, ProxyProtocol::V2];

    /// The id in the config and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ProxyProtocol::V1 => "v1",
            ProxyProtocol::V2 => "v2",
        }
    }

    pub fn from_name(name: &str) -> Option<ProxyProtocol> {
        ProxyProtocol::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl fmt::Display for ProxyProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether an HTTP API may be spoken in the clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpScheme {
    /// HTTP unless the target says `tls = true` (TShock, Palworld: whatever the owner put in
    /// front of it).
    Either,
    /// HTTPS only (the API exists only over TLS).
    HttpsOnly,
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

/// A credential key of a `[[target]]`, by its name in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CredentialKey {
    /// `username = "..."`: a login name, not secret.
    Username,
    /// `password_file = "..."`.
    Password,
    /// `token_file = "..."`.
    Token,
    /// `api_token_file = "..."`.
    ApiToken,
    /// `rcon = { port = N, password_file = "..." }`.
    Rcon,
}

impl CredentialKey {
    pub const ALL: [CredentialKey; 5] = [
        CredentialKey::Username,
        CredentialKey::Password,
        CredentialKey::Token,
        CredentialKey::ApiToken,
        CredentialKey::Rcon,
    ];

    /// The key as written in the config.
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialKey::Username => "username",
            CredentialKey::Password => "password_file",
            CredentialKey::Token => "token_file",
            CredentialKey::ApiToken => "api_token_file",
            CredentialKey::Rcon => "rcon",
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

/// What a configured target logs in with. Only configured targets carry credentials: an
/// ad-hoc `/probe` or a `[module.NAME]` never does. Every secret is a [`Secret`], so the
/// derived `Debug` shows none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// Login name (`username`); not a secret.
    pub username: Option<String>,
    /// `password_file`'s content.
    pub password: Option<Secret>,
    /// `token_file`'s content.
    pub token: Option<Secret>,
    /// `api_token_file`'s content.
    pub api_token: Option<Secret>,
    /// Source RCON (`rcon = { port, password_file }`).
    pub rcon: Option<Rcon>,
    /// HTTP APIs: the SHA-256 of the certificate the server must present
    /// (`tls_fingerprint`; [`Target::tls`] says [`TlsMode::Pinned`]). Not a secret, but
    /// carried here so that the rare pinned target pays for it and `Target` stays small.
    pub tls_pin: Option<[u8; 32]>,
}

impl Credentials {
    /// Only a `password_file`'s password, given from memory: what `demo` logs in to its own
    /// simulators with.
    pub fn password(password: &str) -> Credentials {
        Credentials {
            password: Some(Secret::new(password)),
            ..Credentials::default()
        }
    }

    /// Whether the key is set.
    pub fn has(&self, key: CredentialKey) -> bool {
        match key {
            CredentialKey::Username => self.username.is_some(),
            CredentialKey::Password => self.password.is_some(),
            CredentialKey::Token => self.token.is_some(),
            CredentialKey::ApiToken => self.api_token.is_some(),
            CredentialKey::Rcon => self.rcon.is_some(),
        }
    }
}

/// A Source RCON login: where and with what password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rcon {
    /// The RCON port; `None`: the protocol's default ([`Protocol::default_rcon_port`]).
    pub port: Option<u16>,
    pub password: Secret,
}

impl Rcon {
    /// A login whose password is given from memory: what `demo` logs in to its own
    /// simulators' consoles with.
    pub fn with_password(port: u16, password: &str) -> Rcon {
        Rcon {
            port: Some(port),
            password: Secret::new(password),
        }
    }
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

/// Caps on what one poll may read from a server. Defaults suit every real server seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes a whole reply may take: a TCP stream, a reassembled or decompressed split reply.
    /// (`u32`: the config caps it at 64 MiB, and the field's 8 bytes less keep `Arc<Target>`
    /// in a smaller allocation; read it as a size with [`Limits::reply_cap`].)
    pub max_reply_bytes: u32,
    /// Fragments a split UDP reply may announce.
    pub max_split_packets: u8,
    /// Challenges an A2S server may issue in a row before the poll fails with `challenge`.
    pub max_challenges: u8,
}

impl Limits {
    /// [`Limits::max_reply_bytes`] as a size.
    pub fn reply_cap(&self) -> usize {
        self.max_reply_bytes as usize
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_reply_bytes: 1024 * 1024,
            max_split_packets: 32,
            max_challenges: 3,
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
    /// TeamSpeak 3: the virtual server to select (`use port=`), by its voice port
    /// (`voice_port = N`; the config refuses it elsewhere); `None`: the default 9987.
    pub voice_port: Option<u16>,
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
