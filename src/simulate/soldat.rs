//! A simulated Soldat file server: gamestat.txt for `STARTFILES logs/gamestat.txt`, as a
//! Soldat 1.x server sends it (the layout of the reply gamedig's pull request published),
//! with knobs for hostile replies.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn;
use super::hostile::{start, Hostile};
use super::tcp::{serve_tcp, write_split};
use super::{SimServer, World, WorldState};
use crate::protocol::soldat::{self, Gamestat, Record, END, START};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Soldat,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Hostile or unusual behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// The reply in 1-byte pieces.
    Bytewise,
    /// Accepts and says nothing.
    Silence,
    /// `STARTFILES`, then a line every 50 ms, never `ENDFILES`.
    NeverEnds,
    /// A 1 MiB file.
    Oversized,
    /// Closes before `ENDFILES`.
    Truncated,
    /// `Players: 2000000`.
    LyingCount,
    /// The last record has four lines of five.
    CutRecord,
    /// Both 4-byte fields say 0xFFFFFFFF (not read: still up).
    LyingSizes,
    /// `STARTFILES` and `ENDFILES` with nothing between (downloads or logging off).
    NoFile,
    /// An HTTP answer (OpenSoldat's file server speaks HTTP).
    Http,
}

/// gamestat.txt for this world: its game as the game mode, every player on team 0 with a
/// ping of 20 ms a place.
pub fn gamestat_of(w: &WorldState) -> Gamestat {
    Gamestat {
        players: u32::try_from(w.players.len()).unwrap_or(u32::MAX),
        map: w.map.clone(),
        gamemode: w.game.clone(),
        timeleft: "10:00".into(),
        teams: Vec::new(),
        list: w
            .players
            .iter()
            .enumerate()
            .map(|(i, (name, score, _))| Record {
                name: name.clone(),
                kills: (*score).into(),
                deaths: i as i64,
                team: 0,
                ping: 20 * (i as u32 + 1),
            })
            .collect(),
    }
}

/// Serves the file server on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    serve_tcp(
        world,
        misbehaviour,
        |stream, world, m: Arc<Misbehaviour>| async move {
            let _ = session(stream, &world, *m).await;
        },
    )
    .await
}

/// A deathmatch server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: String::new(),
        map: "Ash".into(),
        game: "Deathmatch".into(),
        max: 0,
        players: vec![("Major".into(), 4, 0.0), ("Kat".into(), 9, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(5), 0, |t| {
        format!("Soldier{t}")
    })
    .await
}

/// Every misbehaviour of this simulator, with what the exporter must publish for it: the
/// hostile world's 2 players (gamestat.txt has no capacity: max 0, no bots and no server
/// name).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, m));
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 0, None, with(M::None)).expect_name(""),
        Hostile::up("bytewise", 2, 0, None, with(M::Bytewise)).expect_name(""),
        Hostile::up("lying-sizes", 2, 0, None, with(M::LyingSizes)).expect_name(""),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("never-ends", "timeout", with(M::NeverEnds)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("truncated", "incomplete", with(M::Truncated)),
        Hostile::down("lying-count", "malformed", with(M::LyingCount)),
        Hostile::down("cut-record", "malformed", with(M::CutRecord)),
        Hostile::down("no-file", "malformed", with(M::NoFile)),
        Hostile::down("http", "malformed", with(M::Http)),
    ]
}

/// The whole reply for this world and misbehaviour.
fn reply(w: &WorldState, m: Misbehaviour) -> Vec<u8> {
    use Misbehaviour as M;
    let mut g = gamestat_of(w);
    if m == M::LyingCount {
        g.players = 2_000_000;
    }
    let mut file = String::new();
    soldat::encode_gamestat(&g, &mut file);
    match m {
        M::CutRecord => file.push_str("Straggler\r\n1\r\n2\r\n0\r\n"),
        M::Oversized => file.push_str(&"x".repeat(1 << 20)),
        _ => {}
    }
    let mut out = Vec::new();
    soldat::encode_reply(&file, &mut out);
    match m {
        M::LyingSizes => {
            let at = START.len();
            out[at..at + 4].copy_from_slice(&[0xFF; 4]);
            let second = at + 4 + soldat::FILE.len() + 2;
            out[second..second + 4].copy_from_slice(&[0xFF; 4]);
        }
        M::Truncated => out.truncate(out.len() - END.len() - 3),
        M::NoFile => {
            out.clear();
            out.extend_from_slice(START);
            out.extend_from_slice(END);
        }
        M::Http => {
            out.clear();
            out.extend_from_slice(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        }
        _ => {}
    }
    out
}

async fn session(mut stream: TcpStream, world: &World, m: Misbehaviour) -> io::Result<()> {
    use Misbehaviour as M;
    // The request first: the server answers once it has all three lines.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 512];
    while !soldat::is_request(&buf) {
        match stream.read(&mut chunk).await? {
            0 => return Ok(()),
            n => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 4096 {
            return Ok(());
        }
    }
    match m {
        M::Silence => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(())
        }
        M::NeverEnds => {
            stream.write_all(START).await?;
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                stream.write_all(b"more\r\n").await?;
            }
        }
        _ => {
            let out = reply(&world.snapshot(), m);
            let piece = (m == M::Bytewise).then_some(1);
            write_split(&mut stream, &out, piece).await?;
            stream.shutdown().await
        }
    }
}
