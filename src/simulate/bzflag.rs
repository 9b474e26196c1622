//! Simulated BZFlag server (bzfs 2.4): answers the hello with a player slot, then
//! `MsgQueryGame` and `MsgQueryPlayers` from the world, and keeps the connection open as
//! bzfs does, with knobs for the ways a server or something pretending to be one can
//! misbehave.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::tcp::serve_tcp;
use super::{SimServer, World, WorldState};
use crate::protocol::bzflag::{
    decode_message, encode_game, encode_hello, encode_message, encode_record, encode_team_update,
    Game, Record, COMPUTER_PLAYER, HELLO, MSG_ADD_PLAYER, MSG_QUERY_GAME, MSG_QUERY_PLAYERS,
    MSG_TEAM_UPDATE, NO_SLOT, OBSERVER_TEAM,
};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Bzflag,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["style", "max_shots"],
    hostile,
    password: None,
};

/// The protocol version bzfs 2.4 announces.
pub const VERSION: &[u8; 4] = b"0221";

/// `MsgMessage` ('mg'): chat, broadcast to every connection.
const MSG_MESSAGE: u16 = 0x6d67;

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Everything goes out one byte per write.
    Bytewise,
    /// A chat, a team update and a repeated player record come between the answers, as
    /// bzfs broadcasts them to every connection.
    Broadcast,
    /// The hello is answered with player id 0xff (no free slot), then the connection closes.
    Full,
    /// The hello's answer is not `BZFS`.
    NotBzfs,
    /// The `qg` answer's length says 10: its body ends early.
    ShortGame,
    /// A player record's length says 171, 100 bytes come, then the connection closes.
    CutRecord,
    /// `qp` announces three players more than it sends; the connection stays open.
    LyingCount,
    /// A player record's header, then a byte every 50 ms, forever.
    NeverEnds,
    /// A message length of 65535, more than bzfs ever sends.
    Oversized,
    /// `qp` announces 60000 players.
    HugeCount,
    /// Chat messages, forever, and no answer.
    Flood,
    /// The hello is answered, the queries never are.
    Silence,
}

/// How the server is dressed and how it misbehaves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BzflagConfig {
    /// Observers on the server besides the world's players (never counted online).
    pub observers: u16,
    pub misbehaviour: Misbehaviour,
}

/// The world's players as bzfs lists them: humans on red and blue, bots (server-side
/// robots) rogue, then `observers` observers; ids in that order.
pub fn records(state: &WorldState, observers: u16) -> Vec<Record> {
    let wins = |score: i32| u16::try_from(score.max(0)).unwrap_or(u16::MAX);
    let losses = |score: i32| u16::try_from((-score).max(0)).unwrap_or(u16::MAX);
    let humans = state
        .players
        .iter()
        .enumerate()
        .map(|(i, (name, score, _))| Record {
            id: 0,
            kind: 0,
            team: if i % 2 == 0 { 1 } else { 3 },
            wins: wins(*score),
            losses: losses(*score),
            team_kills: 0,
            callsign: name.chars().filter(|c| *c != '\0').collect(),
            motto: String::new(),
        });
    let bots = (1..=state.bots).map(|i| Record {
        kind: COMPUTER_PLAYER,
        team: 0,
        callsign: format!("robot{i}"),
        ..blank()
    });
    let watchers = (1..=observers).map(|i| Record {
        team: OBSERVER_TEAM,
        callsign: format!("observer{i}"),
        motto: "watching".into(),
        ..blank()
    });
    humans
        .chain(bots)
        .chain(watchers)
        .take(usize::from(crate::protocol::bzflag::MAX_PLAYERS))
        .enumerate()
        .map(|(i, r)| Record {
            id: u8::try_from(i).unwrap_or(u8::MAX),
            ..r
        })
        .collect()
}

fn blank() -> Record {
    Record {
        id: 0,
        kind: 0,
        team: 0,
        wins: 0,
        losses: 0,
        team_kills: 0,
        callsign: String::new(),
        motto: String::new(),
    }
}

/// The `qg` answer for a world: a teamed free-for-all with jumping, its players counted
/// per team.
pub fn game(state: &WorldState, records: &[Record]) -> Game {
    let max = u16::try_from(state.max).unwrap_or(u16::MAX);
    let mut sizes = [0u16; 6];
    for r in records {
        if let Some(s) = sizes.get_mut(usize::from(r.team)) {
            *s = s.saturating_add(1);
        }
    }
    Game {
        style: 0,
        options: 0x0018,
        max_players: max,
        max_shots: 3,
        team_sizes: sizes,
        team_max: [max, max, max, max, max, 200],
        max_player_score: 50,
        max_team_score: 100,
        time_limit: 600,
        time_elapsed: 42,
        ..Game::default()
    }
}

/// Serves the protocol on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: BzflagConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

async fn write(stream: &mut TcpStream, bytes: &[u8], bytewise: bool) -> io::Result<()> {
    if bytewise {
        for b in bytes {
            stream.write_all(std::slice::from_ref(b)).await?;
        }
        return Ok(());
    }
    stream.write_all(bytes).await
}

async fn serve(mut stream: TcpStream, world: World, config: &BzflagConfig) -> io::Result<()> {
    let m = config.misbehaviour;
    let bytewise = m == Misbehaviour::Bytewise;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 512];
    while buf.len() < HELLO.len() {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if &buf[..HELLO.len()] != HELLO {
        // bzfs's answer to a peer that is not a client: its version, and goodbye.
        stream.write_all(b"BZFS0221\r\n\r\n").await?;
        return stream.shutdown().await;
    }
    buf.drain(..HELLO.len());
    let mut out = Vec::new();
    match m {
        Misbehaviour::Full => {
            encode_hello(VERSION, NO_SLOT, &mut out);
            stream.write_all(&out).await?;
            return stream.shutdown().await;
        }
        Misbehaviour::NotBzfs => out.extend_from_slice(b"HTTP/1.1 400 Bad Request\r\n\r\n"),
        _ => encode_hello(VERSION, 3, &mut out),
    }
    write(&mut stream, &out, bytewise).await?;
    if m == Misbehaviour::Flood {
        loop {
            let mut chat = Vec::new();
            encode_message(MSG_MESSAGE, b"\xfe\x00hello everybody", &mut chat);
            stream.write_all(&chat).await?;
            tokio::task::yield_now().await;
        }
    }
    loop {
        while let Ok(Some((request, used))) = decode_message(&buf) {
            buf.drain(..used);
            if m == Misbehaviour::Silence {
                continue;
            }
            let mut out = Vec::new();
            if answer(request.code, &world, config, &mut out) {
                if m == Misbehaviour::NeverEnds && request.code == MSG_QUERY_PLAYERS {
                    stream.write_all(&out).await?;
                    loop {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        stream.write_all(b"x").await?;
                    }
                }
                write(&mut stream, &out, bytewise).await?;
                if m == Misbehaviour::CutRecord && request.code == MSG_QUERY_PLAYERS {
                    return stream.shutdown().await;
                }
            }
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        if buf.len() < 4096 {
            buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// Writes the answer to one query into `out`; `false` for a code bzfs does not answer a
/// query connection with.
fn answer(code: u16, world: &World, config: &BzflagConfig, out: &mut Vec<u8>) -> bool {
    let m = config.misbehaviour;
    let state = world.snapshot();
    let records = records(&state, config.observers);
    match code {
        MSG_QUERY_GAME => {
            let mut body = Vec::new();
            encode_game(&game(&state, &records), &mut body);
            if m == Misbehaviour::Broadcast {
                encode_message(MSG_MESSAGE, b"\xfe\x00welcome", out);
            }
            if m == Misbehaviour::ShortGame {
                body.truncate(10);
            }
            if m == Misbehaviour::Oversized {
                out.extend_from_slice(&[0xff, 0xff]);
                out.extend_from_slice(&MSG_QUERY_GAME.to_be_bytes());
                return true;
            }
            encode_message(MSG_QUERY_GAME, &body, out);
        }
        MSG_QUERY_PLAYERS => {
            let count = match m {
                Misbehaviour::LyingCount => records.len() + 3,
                Misbehaviour::HugeCount => 60_000,
                _ => records.len(),
            };
            let mut body = 8u16.to_be_bytes().to_vec();
            body.extend_from_slice(&u16::try_from(count).unwrap_or(u16::MAX).to_be_bytes());
            encode_message(MSG_QUERY_PLAYERS, &body, out);
            let mut teams = Vec::new();
            let g = game(&state, &records);
            let rows: Vec<_> = (0..5u16)
                .map(|t| (t, g.team_sizes[usize::from(t)], 0, 0))
                .collect();
            encode_team_update(&rows, &mut teams);
            encode_message(MSG_TEAM_UPDATE, &teams, out);
            if m == Misbehaviour::NeverEnds {
                out.extend_from_slice(&171u16.to_be_bytes());
                out.extend_from_slice(&MSG_ADD_PLAYER.to_be_bytes());
                return true;
            }
            for (i, r) in records.iter().enumerate() {
                let mut body = Vec::new();
                encode_record(r, &mut body);
                if m == Misbehaviour::CutRecord && i + 1 == records.len() {
                    out.extend_from_slice(&171u16.to_be_bytes());
                    out.extend_from_slice(&MSG_ADD_PLAYER.to_be_bytes());
                    out.extend_from_slice(&body[..100]);
                    break;
                }
                encode_message(MSG_ADD_PLAYER, &body, out);
                if m == Misbehaviour::Broadcast && i == 0 {
                    encode_message(MSG_TEAM_UPDATE, &teams, out);
                    encode_message(MSG_ADD_PLAYER, &body, out);
                }
            }
        }
        _ => return false,
    }
    true
}

/// A BZFlag server with tanks coming and going and one observer, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: String::new(),
            map: String::new(),
            game: "Team FFA".into(),
            version: "0221".into(),
            max: 20,
            bots: 0,
            players: vec![("Tiger".into(), 12, 0.0), ("Phantom".into(), -2, 0.0)],
            rules: Vec::new(),
            password: false,
        }
    });
    let mut server = spawn(
        world.clone(),
        BzflagConfig {
            observers: 1,
            ..BzflagConfig::default()
        },
    )
    .await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(11), 3, |t| {
            format!("tank{t}")
        }));
    Ok(server)
}

/// The hostile fleet's BZFlag servers: the fleet's 2 players and 2 robots on 24 slots;
/// BZFlag's query carries no server name.
pub fn hostile() -> Vec<Hostile> {
    let with = |observers: u16, misbehaviour: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                BzflagConfig {
                    observers,
                    misbehaviour,
                },
            )
        })
    };
    use Misbehaviour as M;
    let up = |name, start| Hostile::up(name, 4, 24, Some(2), start).expect_name("");
    vec![
        up("ok", with(0, M::None)),
        up("observers", with(3, M::None)),
        up("bytewise", with(1, M::Bytewise)),
        up("broadcast", with(0, M::Broadcast)),
        Hostile::down("full", "refused", with(0, M::Full)),
        Hostile::down("not-bzfs", "malformed", with(0, M::NotBzfs)),
        Hostile::down("short-game", "malformed", with(0, M::ShortGame)),
        Hostile::down("cut-record", "incomplete", with(0, M::CutRecord)),
        Hostile::down("lying-count", "timeout", with(0, M::LyingCount)),
        Hostile::down("never-ends", "timeout", with(0, M::NeverEnds)),
        Hostile::down("oversized", "too_large", with(0, M::Oversized)),
        Hostile::down("huge-count", "too_large", with(0, M::HugeCount)),
        Hostile::down("flood", "mismatch", with(0, M::Flood)),
        Hostile::down("silent", "timeout", with(0, M::Silence)),
    ]
}
