//! What a target logs in with, and the config keys that carry it. Each protocol's spec says
//! which keys it takes and what they mean there (`protocol::<p>::spec`); `target` re-exports
//! these types, kept here so that a spec can name them.

use crate::secret::Secret;

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
    /// `code_file = "..."`: an access code sent in a URL's query (Farming Simulator's stats
    /// feed).
    Code,
}

impl CredentialKey {
    pub const ALL: [CredentialKey; 6] = [
        CredentialKey::Username,
        CredentialKey::Password,
        CredentialKey::Token,
        CredentialKey::ApiToken,
        CredentialKey::Rcon,
        CredentialKey::Code,
    ];

    /// The key as written in the config.
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialKey::Username => "username",
            CredentialKey::Password => "password_file",
            CredentialKey::Token => "token_file",
            CredentialKey::ApiToken => "api_token_file",
            CredentialKey::Rcon => "rcon",
            CredentialKey::Code => "code_file",
        }
    }
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
    /// `code_file`'s content.
    pub code: Option<Secret>,
    /// HTTP APIs: the SHA-256 of the certificate the server must present
    /// (`tls_fingerprint`; the target's `tls` says `TlsMode::Pinned`). Not a secret, but
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
            CredentialKey::Code => self.code.is_some(),
        }
    }
}

/// A console login (`rcon = { port, password_file }`): where and with what password. The
/// game picks the console's dialect ([`Console`]), so one table serves them all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rcon {
    /// The RCON port; `None`: the console's default ([`Console::default_port`]), else the
    /// protocol's (the spec's `default_rcon_port`).
    pub port: Option<u16>,
    pub password: Secret,
    /// The dialect the game's console speaks (the target's `game`; Source RCON without one).
    pub console: Console,
}

/// Which admin console a game has: the dialect its `rcon` table is spoken in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Console {
    /// Source RCON over TCP (srcds, Minecraft, Factorio, Palworld...).
    #[default]
    Source,
    /// Facepunch's WebRCON: JSON over a WebSocket, the password in the URL path (Rust).
    WebRcon,
    /// 7 Days to Die's telnet console: a password prompt, then text lines.
    SdtdTelnet,
}

impl Console {
    /// The console's port when `rcon.port` is not given; `None`: the protocol's.
    pub const fn default_port(self) -> Option<u16> {
        match self {
            Console::Source => None,
            // Rust: the game port + 1 by convention (28015 -> 28016), `+rcon.port`.
            Console::WebRcon => Some(28016),
            // 7 Days to Die: serverconfig.xml's TelnetPort default.
            Console::SdtdTelnet => Some(8081),
        }
    }
}

impl Rcon {
    /// A Source RCON login whose password is given from memory: what `demo` logs in to its
    /// own simulators' consoles with ([`Rcon::speaking`] for another dialect).
    pub fn with_password(port: u16, password: &str) -> Rcon {
        Rcon {
            port: Some(port),
            password: Secret::new(password),
            console: Console::Source,
        }
    }

    /// The same login in another console dialect.
    pub fn speaking(self, console: Console) -> Rcon {
        Rcon { console, ..self }
    }
}
