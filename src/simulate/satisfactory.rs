//! Simulated Satisfactory dedicated server: the Lightweight Query on UDP and, when
//! configured with an API token, the HTTPS API (`QueryServerState`) on TCP with the same port
//! number, with knobs for the server state and for hostile replies.

use std::io;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::json;
use tokio::net::{TcpListener, UdpSocket};

use super::churn::churn;
use super::hostile::{start, Hostile, Outcome};
use super::http::{self, SimReply, SimRequest};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::satisfactory::api::PATH;
use crate::protocol::satisfactory::{self, Reply, ServerState, SubState};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Satisfactory,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["server_state", "server_state_code"],
    hostile,
    password: None,
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// Echoes another cookie.
    WrongCookie,
    /// Sends a reply to another cookie first, then the right one.
    StaleFirst,
    /// Speaks protocol version 2.
    OtherVersion,
    /// The name length says 60,000 bytes.
    NameOverrun,
    /// The terminator is missing.
    NoTerminator,
}

#[derive(Debug, Clone)]
pub struct SatisfactoryConfig {
    pub state: ServerState,
    /// The build number (`net_cl`) reported; `None`: the world's version if it is a number,
    /// else 385883.
    pub net_cl: Option<u32>,
    pub flags: u64,
    pub misbehaviour: Misbehaviour,
    /// The HTTPS API; `None`: UDP only.
    pub api: Option<ApiConfig>,
}

impl Default for SatisfactoryConfig {
    fn default() -> Self {
        SatisfactoryConfig {
            state: ServerState::Playing,
            net_cl: None,
            flags: 0,
            misbehaviour: Misbehaviour::None,
            api: None,
        }
    }
}

/// How the HTTPS API misbehaves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApiMisbehaviour {
    #[default]
    None,
    /// Junk where the JSON should be.
    BadJson,
    /// A 1 MB body.
    Huge,
    /// An HTML page with status 200.
    WrongContentType,
    /// HTTP 401 with the `invalid_token` envelope, whatever the token.
    Unauthorized,
    /// Status 200 with the `invalid_token` error envelope (as a proxy might rewrite it).
    ErrorCode,
}

/// The simulated HTTPS API.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// The token `Authorization: Bearer` must carry.
    pub token: String,
    pub tls: Arc<rustls::ServerConfig>,
    pub tech_tier: u32,
    pub game_phase: String,
    pub average_tick_rate: f64,
    pub misbehaviour: ApiMisbehaviour,
}

impl ApiConfig {
    /// An API with `token`, serving over `tls`, in tier 3 of phase 2 at 29.5 ticks a second.
    pub fn new(token: impl Into<String>, tls: Arc<rustls::ServerConfig>) -> ApiConfig {
        ApiConfig {
            token: token.into(),
            tls,
            tech_tier: 3,
            game_phase: "/Script/FactoryGame.FGGamePhase'/Game/FactoryGame/GamePhases/\
                         GP_Project_Assembly_Phase_2.GP_Project_Assembly_Phase_2'"
                .into(),
            average_tick_rate: 29.5,
            misbehaviour: ApiMisbehaviour::None,
        }
    }
}

/// Serves the Lightweight Query on 127.0.0.1, on a port of the system's choosing, and the
/// HTTPS API on TCP with the same port number when configured.
pub async fn spawn(world: World, config: SatisfactoryConfig) -> io::Result<SimServer> {
    let Some(api) = config.api.clone() else {
        return datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await;
    };
    let (udp, tcp) = same_port().await?;
    let w = world.clone();
    let mut server = datagrams::spawn_on(udp, move |req: &[u8], _from, _own| {
        answer(req, &w.snapshot(), &config)
    })?;
    let tls = api.tls.clone();
    let mut https = http::spawn_on(tcp, Some(tls), move |req| {
        answer_api(req, &world.snapshot(), &api)
    })?;
    server.tasks.append(&mut https.tasks);
    Ok(server)
}

/// A UDP socket and a TCP listener on one port number of 127.0.0.1 (a few tries: the TCP
/// port may be taken).
async fn same_port() -> io::Result<(UdpSocket, TcpListener)> {
    let mut last = None;
    for _ in 0..16 {
        let udp = UdpSocket::bind("127.0.0.1:0").await?;
        match TcpListener::bind(udp.local_addr()?).await {
            Ok(tcp) => return Ok((udp, tcp)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no port free for UDP and TCP")))
}

/// The answer of the HTTPS API to one request.
fn answer_api(req: &SimRequest, w: &WorldState, api: &ApiConfig) -> SimReply {
    let refused = json!({"errorCode": "invalid_token",
                         "errorMessage": "The provided authentication token is invalid"});
    let bearer = format!("Bearer {}", api.token);
    if api.misbehaviour == ApiMisbehaviour::Unauthorized
        || req.authorization.as_deref() != Some(bearer.as_str())
    {
        return SimReply {
            status: 401,
            ..SimReply::json(refused.to_string())
        };
    }
    // opengsq posts to `/api/v1/`: the path with a trailing slash is the same endpoint.
    if req.method != "POST" || req.path.trim_end_matches('/') != PATH {
        return SimReply::status(404);
    }
    let function = serde_json::from_slice::<serde_json::Value>(&req.body)
        .ok()
        .and_then(|v| v.get("function")?.as_str().map(str::to_string));
    if function.as_deref() != Some("QueryServerState") {
        let unknown = json!({"errorCode": "unknown_function", "errorMessage": "?"});
        return SimReply {
            status: 400,
            ..SimReply::json(unknown.to_string())
        };
    }
    match api.misbehaviour {
        ApiMisbehaviour::BadJson => {
            return SimReply::json(&b"{\"data\":{\"serverGameState\":{\"numConn"[..])
        }
        ApiMisbehaviour::WrongContentType => {
            return SimReply {
                content_type: "text/html",
                body: b"<html>maintenance</html>".to_vec(),
                ..SimReply::status(200)
            }
        }
        ApiMisbehaviour::ErrorCode => return SimReply::json(refused.to_string()),
        _ => {}
    }
    let mut state = json!({"activeSessionName": w.name, "numConnectedPlayers": w.players.len(),
        "playerLimit": w.max, "techTier": api.tech_tier, "activeSchematic": "None",
        "gamePhase": api.game_phase, "isGameRunning": true, "totalGameDuration": 5400,
        "isGamePaused": false, "averageTickRate": api.average_tick_rate,
        "autoLoadSessionName": w.name});
    if api.misbehaviour == ApiMisbehaviour::Huge {
        state["activeSchematic"] = "x".repeat(1 << 20).into();
    }
    SimReply::json(json!({"data": {"serverGameState": state}}).to_string())
}

/// The demo's certificate (a self-signed P-256 one for `localhost` and 127.0.0.1, made
/// once with openssl for the demo and public in this repository: it protects nothing) and
/// its key, DER.
const DEMO_CERT: &[u8] = include_bytes!("satisfactory_demo_cert.der");
const DEMO_KEY: &[u8] = include_bytes!("satisfactory_demo_key.der");
/// The API token of the demo's server (the demo target carries it; nothing secret).
pub const DEMO_TOKEN: &str = "ewoJInBsIjogIkFQSVRva2VuIgp9.demo-token";

/// The demo certificate's server configuration and SHA-256 fingerprint (what a target pins).
pub fn demo_tls() -> (Arc<rustls::ServerConfig>, [u8; 32]) {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    static MADE: OnceLock<Arc<rustls::ServerConfig>> = OnceLock::new();
    let config = MADE.get_or_init(|| {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(DEMO_KEY.to_vec()));
        let built = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|b| {
                b.with_no_client_auth()
                    .with_single_cert(vec![CertificateDer::from(DEMO_CERT.to_vec())], key)
            });
        match built {
            Ok(c) => Arc::new(c),
            Err(e) => unreachable!("the embedded demo certificate is valid: {e}"),
        }
    });
    let digest = ring::digest::digest(&ring::digest::SHA256, DEMO_CERT);
    let mut sha256 = [0; 32];
    sha256.copy_from_slice(digest.as_ref());
    (config.clone(), sha256)
}

/// A factory whose state and sub-state versions move, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Ficsit Demo Factory".into(),
            map: String::new(),
            game: "Satisfactory".into(),
            version: "385883".into(),
            max: 4,
            players: vec![("pioneer".into(), 0, 0.0)],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let config = SatisfactoryConfig {
        api: Some(ApiConfig::new(DEMO_TOKEN, demo_tls().0)),
        ..SatisfactoryConfig::default()
    };
    let mut server = spawn(world.clone(), config).await?;
    // Players reach the exporter through the HTTPS API (the demo target has the token);
    // churn also moves the Lightweight Query's sub-state versions.
    server
        .tasks
        .push(churn(world, Duration::from_secs(9), 0, |t| {
            format!("pioneer{t}")
        }));
    Ok(server)
}

/// The hostile fleet's Satisfactory servers. No counts travel in the Lightweight Query: up
/// ones without the API are published with 0 online and 0 max; the `api-` ones have the
/// HTTPS API and a target with its token.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                SatisfactoryConfig {
                    misbehaviour: m,
                    ..SatisfactoryConfig::default()
                },
            )
        })
    };
    let up = |name, m| Hostile {
        outcome: Outcome::Up {
            online: 0,
            max: 0,
            bots: None,
            name: None,
        },
        ..Hostile::down(name, "", with(m))
    };
    let api = |m: ApiMisbehaviour| {
        start(move |w| {
            let config = SatisfactoryConfig {
                api: Some(ApiConfig {
                    misbehaviour: m,
                    ..ApiConfig::new(DEMO_TOKEN, demo_tls().0)
                }),
                ..SatisfactoryConfig::default()
            };
            spawn(w, config)
        })
    };
    let api_down = |name, reason, m| Hostile::down(name, reason, api(m)).with_config(api_target());
    vec![
        Hostile::up("api-ok", 2, 24, None, api(ApiMisbehaviour::None)).with_config(api_target()),
        api_down("api-bad-json", "malformed", ApiMisbehaviour::BadJson),
        api_down("api-huge", "too_large", ApiMisbehaviour::Huge).heavy(),
        api_down("api-html", "malformed", ApiMisbehaviour::WrongContentType),
        api_down("api-401", "auth_refused", ApiMisbehaviour::Unauthorized),
        api_down("api-error-code", "auth_refused", ApiMisbehaviour::ErrorCode),
        up("healthy", Misbehaviour::None),
        up("stale-first", Misbehaviour::StaleFirst),
        Hostile::down("silent", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("wrong-cookie", "mismatch", with(Misbehaviour::WrongCookie)),
        Hostile::down("version-2", "malformed", with(Misbehaviour::OtherVersion)),
        Hostile::down("name-overrun", "malformed", with(Misbehaviour::NameOverrun)),
        Hostile::down(
            "no-terminator",
            "malformed",
            with(Misbehaviour::NoTerminator),
        ),
    ]
}

/// The config lines of a hostile target using the API: the demo token, in a file written
/// once per process under the temp directory (mode 0600; the fleet's config names files,
/// never secrets), and `tls_insecure = true` (the servers' certificate is the demo's).
fn api_target() -> &'static str {
    static LINES: OnceLock<String> = OnceLock::new();
    LINES.get_or_init(|| {
        let path = std::env::temp_dir().join(format!(
            "gameserver-exporter-hostile-satisfactory-{}.token",
            std::process::id()
        ));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, DEMO_TOKEN.as_bytes()));
        if let Err(e) = written {
            tracing::warn!(error = %e, "could not write the hostile fleet's token file");
        }
        format!(
            "api_token_file = \"{}\"\ntls_insecure = true\n",
            path.display()
        )
    })
}

fn reply(w: &WorldState, config: &SatisfactoryConfig, cookie: u64) -> Reply {
    // Sub-state versions change when the state they describe does: follow the players.
    let change = w.players.len() as u16;
    Reply {
        cookie,
        state: config.state,
        net_cl: config
            .net_cl
            .or_else(|| w.version.parse().ok())
            .unwrap_or(385_883),
        flags: config.flags,
        substates: vec![
            SubState {
                id: 0,
                version: change,
            },
            SubState { id: 1, version: 1 },
            SubState { id: 2, version: 1 },
            SubState { id: 3, version: 2 },
        ],
        name: w.name.clone(),
    }
}

/// The replies to one datagram.
fn answer(datagram: &[u8], w: &WorldState, config: &SatisfactoryConfig) -> Vec<Vec<u8>> {
    let Ok(cookie) = satisfactory::decode_request(datagram) else {
        return Vec::new();
    };
    let encode = |cookie: u64| {
        let mut out = Vec::new();
        satisfactory::encode_reply(&reply(w, config, cookie), &mut out);
        out
    };
    let mut out = encode(cookie);
    match config.misbehaviour {
        Misbehaviour::None => vec![out],
        Misbehaviour::Silence => Vec::new(),
        Misbehaviour::WrongCookie => vec![encode(!cookie)],
        Misbehaviour::StaleFirst => vec![encode(cookie.wrapping_add(1)), out],
        Misbehaviour::OtherVersion => {
            out[3] = 2;
            vec![out]
        }
        Misbehaviour::NameOverrun => {
            let at = out.len() - 1 - w.name.len() - 2;
            out[at..at + 2].copy_from_slice(&60_000u16.to_le_bytes());
            vec![out]
        }
        Misbehaviour::NoTerminator => {
            out.pop();
            vec![out]
        }
    }
}
