//! Simulated Satisfactory dedicated server: the Lightweight Query on UDP, with knobs for the
//! server state and for hostile replies.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile, Outcome};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::satisfactory::{self, Reply, ServerState, SubState};

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
}

impl Default for SatisfactoryConfig {
    fn default() -> Self {
        SatisfactoryConfig {
            state: ServerState::Playing,
            net_cl: None,
            flags: 0,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Serves the Lightweight Query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: SatisfactoryConfig) -> io::Result<SimServer> {
    datagrams::spawn(move |req: &[u8], _from, _own| answer(req, &world.snapshot(), &config)).await
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
    let mut server = spawn(world.clone(), SatisfactoryConfig::default()).await?;
    // Players are not in this query; churn still moves the sub-state versions.
    server
        .tasks
        .push(churn(world, Duration::from_secs(9), 0, |t| {
            format!("pioneer{t}")
        }));
    Ok(server)
}

/// The hostile fleet's Satisfactory servers. No counts travel in this query: up ones are
/// published with 0 online and 0 max.
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
    vec![
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
