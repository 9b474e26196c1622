//! Simulated Nadeo dedicated server (Trackmania 2 / Shootmania on ManiaPlanet, or Trackmania
//! Forever): GBXRemote 2 over TCP, answering the calls readers make (ours, gamedig's) from
//! the world, with an optional `Authenticate` login and knobs for the ways a server or
//! something pretending to be one can misbehave.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn;
use super::hostile::{start, Hostile};
use super::tcp::{self, serve_tcp};
use super::{SimServer, World, WorldState};
use crate::protocol::nadeo::xmlrpc::{decode_call, encode_fault, encode_response, Value};
use crate::protocol::nadeo::{decode_frame, encode_frame, encode_handshake, HANDSHAKE};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Nadeo,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["title_id", "environment"],
    hostile,
    password: Some(PASSWORD),
};

/// The largest call the server reads (ManiaPlanet's limit).
const MAX_CALL: usize = 1024 * 1024;
/// The fault a server answers a call it does not know.
pub const UNKNOWN_METHOD: i32 = -1000;
/// The password of the simulator's `demo` server (login `User`): harnesses write it into the
/// file a target's `password_file` names ([`super::Simulator::password`]).
pub const PASSWORD: &str = "nadeo-sim-superadmin";

/// Which game the server runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Flavour {
    /// ManiaPlanet running the TMStadium title.
    #[default]
    Trackmania2,
    /// ManiaPlanet running SMStorm.
    Shootmania,
    /// TrackMania Forever: `GetCurrentChallengeInfo`, no `GetCurrentMapInfo`.
    Forever,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Every answer goes out one byte per write.
    Bytewise,
    /// A callback (handle without bit 31) before every answer.
    Callbacks,
    /// The handshake says "GBXRemote 1".
    OldHandshake,
    /// The answers' length field says 2^31 - 1.
    LyingLength,
    /// The answer announces 4 KiB, then a byte every 50 ms, forever.
    NeverEnds,
    /// The answer is a real 1.5 MiB player list (more than the default 1 MiB cap).
    Oversized,
    /// Calls are read, never answered.
    Silence,
    /// Every answer carries the call's handle + 1.
    WrongHandle,
    /// Every call is answered with a fault.
    FaultAll,
    /// The answer is not XML-RPC (unclosed elements).
    BadXml,
    /// The login is refused with a fault that quotes the login and password it was sent.
    EchoPassword,
}

#[derive(Debug, Clone, Default)]
pub struct NadeoConfig {
    pub flavour: Flavour,
    /// `(login, password)` the server wants through `Authenticate` before any read; `None`:
    /// reads are open and any login is taken.
    pub login: Option<(String, String)>,
    pub misbehaviour: Misbehaviour,
}

/// The simulator's default configuration with a login: `User` (what a target without
/// `username` logs in as) / [`PASSWORD`].
pub fn config_with_login() -> NadeoConfig {
    NadeoConfig {
        login: Some(("User".into(), PASSWORD.into())),
        ..NadeoConfig::default()
    }
}

fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

fn int(v: i64) -> Value {
    Value::Int(v)
}

fn members(m: Vec<(&str, Value)>) -> Value {
    Value::Struct(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A call's answer from the world: a value, or a fault `(code, text)`.
pub fn answer(state: &WorldState, flavour: Flavour, method: &str) -> Result<Value, (i32, String)> {
    let map = |uid: &str| {
        members(vec![
            ("Name", s(&state.map)),
            ("UId", s(uid)),
            ("FileName", s(&format!("Campaigns\\{}.Map.Gbx", state.map))),
            ("Author", s("nadeo")),
            ("Environnement", s("Stadium")),
            ("Mood", s("Day")),
            ("GoldTime", int(30_250)),
            ("NbLaps", int(0)),
        ])
    };
    let v = match method {
        "GetServerName" => s(&state.name),
        "GetMaxPlayers" => members(vec![
            ("CurrentValue", int(state.max.into())),
            ("NextValue", int(state.max.into())),
        ]),
        "GetPlayerList" => Value::Array(
            state
                .players
                .iter()
                .enumerate()
                .map(|(i, (name, score, _))| {
                    let mut m = vec![
                        ("Login", s(&format!("player{i}"))),
                        ("NickName", s(name)),
                        ("PlayerId", int(i as i64 + 236)),
                        ("TeamId", int(-1)),
                        ("LadderRanking", int((*score).into())),
                    ];
                    if flavour == Flavour::Forever {
                        m.push(("IsSpectator", Value::Bool(false)));
                        m.push(("IsInOfficialMode", Value::Bool(true)));
                    } else {
                        m.push(("SpectatorStatus", int(0)));
                        m.push(("Flags", int(101_000_000)));
                    }
                    members(m)
                })
                .collect(),
        ),
        "GetVersion" => match flavour {
            Flavour::Forever => members(vec![
                ("Name", s("TmForever")),
                ("Version", s("2.11.26")),
                ("Build", s("2011-02-21")),
            ]),
            Flavour::Trackmania2 | Flavour::Shootmania => members(vec![
                ("Name", s("ManiaPlanet")),
                (
                    "TitleId",
                    s(if flavour == Flavour::Shootmania {
                        "SMStorm@nadeo"
                    } else {
                        "TMStadium@nadeo"
                    }),
                ),
                ("Version", s("3.3.0")),
                ("Build", s("2019-10-23_20_00")),
                ("ApiVersion", s("2013-04-16")),
            ]),
        },
        "GetCurrentMapInfo" if flavour == Flavour::Forever => {
            return Err((UNKNOWN_METHOD, "Unknown method.".into()))
        }
        "GetCurrentMapInfo" | "GetCurrentChallengeInfo" => map("wH0gJ8qYk3yXb1xQ2m9nB7v5c4d"),
        // What gamedig asks besides.
        "GetServerOptions" => members(vec![
            ("Name", s(&state.name)),
            ("Comment", s("")),
            (
                "Password",
                s(if state.password { "*" } else { "No password" }),
            ),
            ("PasswordForSpectator", s("")),
            ("CurrentMaxPlayers", int(state.max.into())),
            ("NextMaxPlayers", int(state.max.into())),
            ("CurrentMaxSpectators", int(32)),
            ("NextMaxSpectators", int(32)),
        ]),
        "GetCurrentGameInfo" => members(vec![
            ("GameMode", int(1)),
            ("NbChallenge", int(5)),
            ("TimeAttackLimit", int(300_000)),
        ]),
        _ => return Err((UNKNOWN_METHOD, "Unknown method.".into())),
    };
    Ok(v)
}

/// Serves the protocol on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped ([`serve_tcp`]: Nagle off, each connection cut after
/// [`super::tcp::MAX_CONNECTION`]).
pub async fn spawn(world: World, config: NadeoConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

async fn serve(mut stream: TcpStream, world: World, config: &NadeoConfig) -> io::Result<()> {
    let mut out = Vec::new();
    let hello = match config.misbehaviour {
        Misbehaviour::OldHandshake => "GBXRemote 1",
        _ => HANDSHAKE,
    };
    encode_handshake(hello, &mut out);
    stream.write_all(&out).await?;
    let mut authenticated = config.login.is_none();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        loop {
            let (frame, used) = match decode_frame(&buf, MAX_CALL) {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(_) => return Ok(()),
            };
            buf.drain(..used);
            let Ok((method, params)) = decode_call(&frame.xml) else {
                return Ok(());
            };
            let mut xml = Vec::new();
            let result = if method == "Authenticate" {
                let given = |i: usize| params.get(i).and_then(Value::as_str).unwrap_or("");
                match (&config.login, config.misbehaviour) {
                    (_, Misbehaviour::EchoPassword) => {
                        // Quoted in the fault's string (XML-escaped there): the exporter
                        // must mask it in every form.
                        Err((
                            -1000,
                            format!(
                                "Login unknown or password incorrect: {} / {}",
                                given(0),
                                given(1)
                            ),
                        ))
                    }
                    (Some((l, p)), _) if (given(0), given(1)) != (l.as_str(), p.as_str()) => {
                        Err((-1000, "Login unknown or password incorrect.".into()))
                    }
                    _ => {
                        authenticated = true;
                        Ok(Value::Bool(true))
                    }
                }
            } else if !authenticated {
                Err((-1000, "Permission denied.".into()))
            } else if config.misbehaviour == Misbehaviour::FaultAll {
                Err((UNKNOWN_METHOD, "Unknown method.".into()))
            } else {
                answer(&world.snapshot(), config.flavour, &method)
            };
            match result {
                Ok(v) => encode_response(&v, &mut xml),
                Err((code, text)) => encode_fault(code, &text, &mut xml),
            }
            out.clear();
            let handle = frame.handle;
            match config.misbehaviour {
                Misbehaviour::None
                | Misbehaviour::Bytewise
                | Misbehaviour::OldHandshake
                | Misbehaviour::FaultAll
                | Misbehaviour::EchoPassword => encode_frame(handle, &xml, &mut out),
                Misbehaviour::Callbacks => {
                    let mut cb = Vec::new();
                    cb.extend_from_slice(
                        b"<?xml version=\"1.0\"?><methodCall><methodName>ManiaPlanet.PlayerConnect</methodName>\
                          <params><param><value><string>newcomer</string></value></param></params></methodCall>",
                    );
                    encode_frame(7, &cb, &mut out);
                    encode_frame(handle, &xml, &mut out);
                }
                Misbehaviour::LyingLength => {
                    encode_frame(handle, &xml, &mut out);
                    out[..4].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
                }
                Misbehaviour::NeverEnds => {
                    out.extend_from_slice(&4096u32.to_le_bytes());
                    out.extend_from_slice(&handle.to_le_bytes());
                    stream.write_all(&out).await?;
                    loop {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        stream.write_all(b" ").await?;
                    }
                }
                Misbehaviour::Oversized => {
                    let mut big = Vec::with_capacity(1_600_000);
                    big.extend_from_slice(b"<?xml version=\"1.0\"?><methodResponse><params><param><value><array><data>");
                    while big.len() < 1_500_000 {
                        big.extend_from_slice(b"<value><struct><member><name>NickName</name><value>x</value></member></struct></value>");
                    }
                    big.extend_from_slice(
                        b"</data></array></value></param></params></methodResponse>",
                    );
                    encode_frame(handle, &big, &mut out);
                }
                Misbehaviour::Silence => {}
                Misbehaviour::WrongHandle => {
                    encode_frame(handle.wrapping_add(1) | 0x8000_0000, &xml, &mut out)
                }
                Misbehaviour::BadXml => {
                    encode_frame(handle, b"<methodResponse><params><param><value>", &mut out)
                }
            }
            // Byte by byte: a reply split across as many segments as it has bytes.
            let bytewise = config.misbehaviour == Misbehaviour::Bytewise;
            tcp::write_split(&mut stream, &out, bytewise.then_some(1)).await?;
        }
        if buf.len() > MAX_CALL {
            return Ok(());
        }
    }
}

/// A Trackmania 2 Stadium server with racers coming and going, for `demo` (which logs in
/// with [`PASSWORD`]).
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "$s$o$f90Stadium$fff Demo | TA".into(),
        map: "$fffA01-Race".into(),
        game: "Trackmania 2".into(),
        version: "3.3.0".into(),
        max: 32,
        players: vec![
            ("$f00Speed$fffy".into(), 3, 0.0),
            ("drifter".into(), 12, 0.0),
        ],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, config_with_login());
    churn::demo(world, state, serve, Duration::from_secs(13), 0, |t| {
        format!("racer{t}")
    })
    .await
}

/// The hostile fleet's Nadeo servers (the fleet's 2 players, 24 slots; no credentials).
pub fn hostile() -> Vec<Hostile> {
    let with = |flavour: Flavour, misbehaviour: Misbehaviour, login: bool| {
        start(move |w| {
            let mut config = NadeoConfig {
                flavour,
                misbehaviour,
                ..NadeoConfig::default()
            };
            if login {
                config.login = config_with_login().login;
            }
            spawn(w, config)
        })
    };
    use Flavour::{Forever, Shootmania, Trackmania2 as Tm2};
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(Tm2, M::None, false)),
        Hostile::up("forever", 2, 24, None, with(Forever, M::None, false)),
        Hostile::up("shootmania", 2, 24, None, with(Shootmania, M::None, false)),
        Hostile::up("bytewise", 2, 24, None, with(Tm2, M::Bytewise, false)),
        Hostile::up("callbacks", 2, 24, None, with(Tm2, M::Callbacks, false)),
        Hostile::down(
            "gbxremote-1",
            "malformed",
            with(Tm2, M::OldHandshake, false),
        ),
        Hostile::down(
            "length-2^31-1",
            "too_large",
            with(Tm2, M::LyingLength, false),
        ),
        Hostile::down("never-ends", "timeout", with(Tm2, M::NeverEnds, false)),
        Hostile::down("oversized", "too_large", with(Tm2, M::Oversized, false)),
        Hostile::down("silent", "timeout", with(Tm2, M::Silence, false)),
        Hostile::down("wrong-handle", "mismatch", with(Tm2, M::WrongHandle, false)),
        Hostile::down("fault", "malformed", with(Tm2, M::FaultAll, false)),
        Hostile::down("bad-xml", "malformed", with(Tm2, M::BadXml, false)),
        Hostile::down("login-required", "auth_refused", with(Tm2, M::None, true)),
    ]
}
