//! Simulated Teeworlds / DDNet server in three flavours (plain 0.6, DDNet, 0.7), with knobs
//! for the hostile behaviours the exchange must survive.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio::time::Instant;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::teeworlds::{seven, six, Client, ClientKind, Flavour, Info, FLAG_PASSWORD};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Teeworlds,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Which server software to imitate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SimFlavour {
    /// Plain 0.6: answers `gie3` (plain or behind DDNet's `xe` header) with `inf3` and at most
    /// 16 clients; ignores 0.7.
    Vanilla06,
    /// DDNet: `iext` + `iex+` to the extended request, `inf3` with counts capped at 16 (true
    /// counts appended to the name) to the plain one, and the 0.7 handshake too.
    #[default]
    Ddnet,
    /// Teeworlds 0.7: the token handshake only.
    Seven,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// Every info reply is cut halfway.
    Truncated,
    /// Counts that contradict the list: one client counted, all listed, more players than
    /// clients.
    LyingCounts,
    /// A list of 10,000 clients over as many DDNet packets as it takes (counted as such), or,
    /// for the other flavours, 3,000 clients in one datagram under a count of 16.
    PlayerBomb,
    /// Names full of control bytes, invalid UTF-8, old colour-code habits and 15-byte cuts.
    OddStrings,
    /// Drops an info request that comes within this long of the last one of its kind from
    /// the same IP address, whatever its port (token requests are not info requests).
    FloodProtected(Duration),
}

#[derive(Debug, Clone)]
pub struct TeeworldsConfig {
    pub flavour: SimFlavour,
    /// Connected spectators, beside the world's players.
    pub spectators: Vec<String>,
    /// Largest DDNet reply packet; the list continues in `iex+` packets.
    pub max_datagram: usize,
    pub misbehaviour: Misbehaviour,
}

impl Default for TeeworldsConfig {
    fn default() -> Self {
        TeeworldsConfig {
            flavour: SimFlavour::Ddnet,
            spectators: Vec::new(),
            max_datagram: 1400,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Serves Teeworlds info on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: TeeworldsConfig) -> io::Result<SimServer> {
    let mut last_seen: HashMap<(IpAddr, Kind), Instant> = HashMap::new();
    datagrams::spawn(move |req: &[u8], from: SocketAddr, _own| {
        if let Misbehaviour::FloodProtected(gap) = config.misbehaviour {
            if flooding(&mut last_seen, req, from.ip(), gap) {
                return Vec::new();
            }
        }
        answer(req, from, &world.snapshot(), &config)
    })
    .await
}

/// Whether a request of an info kind comes sooner than `gap` after the last one of its kind
/// from the same address (then a flood-protected server drops it); remembers this one.
fn flooding(
    last_seen: &mut HashMap<(IpAddr, Kind), Instant>,
    req: &[u8],
    ip: IpAddr,
    gap: Duration,
) -> bool {
    let Some(kind) = info_kind(req) else {
        return false;
    };
    let now = Instant::now();
    let fast = last_seen
        .get(&(ip, kind))
        .is_some_and(|&t| now.duration_since(t) < gap);
    if last_seen.len() > 4096 {
        last_seen.clear(); // bounded memory against address floods
    }
    last_seen.insert((ip, kind), now);
    fast
}

/// A DDNet server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Demo DDNet Server".into(),
            map: "Tutorial".into(),
            game: "DDraceNetwork".into(),
            version: "0.6.4, 16.4".into(),
            max: 64,
            players: vec![
                ("nameless tee".into(), -9999, 0.0),
                ("brainless tee".into(), -125, 0.0),
            ],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let config = TeeworldsConfig {
        spectators: vec!["spectating tee".into()],
        ..TeeworldsConfig::default()
    };
    let mut server = spawn(world.clone(), config).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(5), -9999, |t| {
            format!("tee {t}")
        }));
    Ok(server)
}

/// The request kinds flood protection tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    SixInfo,
    SevenInfo,
}

fn info_kind(datagram: &[u8]) -> Option<Kind> {
    if six::decode_request(datagram).is_ok() {
        return Some(Kind::SixInfo);
    }
    match seven::decode_request(datagram) {
        Ok(seven::Request::Info { .. }) => Some(Kind::SevenInfo),
        _ => None,
    }
}

/// The token this server hands `peer`: derived from the address, as real servers do, so the
/// simulator keeps no per-client state.
fn server_token(peer: SocketAddr) -> u32 {
    let mut h: u32 = 0x5eed_7ee5;
    for b in peer.to_string().bytes() {
        h = h.rotate_left(5) ^ u32::from(b);
    }
    h
}

/// The datagrams the server sends in answer to one request.
fn answer(d: &[u8], from: SocketAddr, w: &WorldState, config: &TeeworldsConfig) -> Vec<Vec<u8>> {
    if config.misbehaviour == Misbehaviour::Silence {
        return Vec::new();
    }
    let flavour = config.flavour;
    if let Ok(req) = six::decode_request(d) {
        let mut out = Vec::new();
        match flavour {
            SimFlavour::Seven => return Vec::new(),
            SimFlavour::Vanilla06 => {
                let listed = match config.misbehaviour {
                    Misbehaviour::PlayerBomb => usize::MAX,
                    _ => six::VANILLA_MAX_LISTED,
                };
                let i = info(w, config, Flavour::Vanilla06);
                six::encode_vanilla(&i, req.token as u8, listed, &mut out)
            }
            SimFlavour::Ddnet if req.extended => {
                let packets = six::encode_extended(
                    &info(w, config, Flavour::Ddnet),
                    req.token,
                    config.max_datagram,
                );
                return packets.into_iter().map(|p| spoil(p, config)).collect();
            }
            SimFlavour::Ddnet => {
                let i = ddnet_vanilla(info(w, config, Flavour::Ddnet));
                six::encode_vanilla(&i, req.token as u8, six::VANILLA_MAX_LISTED, &mut out)
            }
        }
        return vec![spoil(out, config)];
    }
    if flavour == SimFlavour::Vanilla06 {
        return Vec::new();
    }
    let mut out = Vec::new();
    match seven::decode_request(d) {
        Ok(seven::Request::Token { mine }) => {
            seven::encode_token_reply(mine, server_token(from), &mut out);
            vec![out]
        }
        Ok(seven::Request::Info {
            server,
            mine,
            browse,
        }) if server == server_token(from) => {
            seven::encode_info_reply(
                &info(w, config, Flavour::Seven),
                mine,
                server,
                browse,
                &mut out,
            );
            vec![spoil(out, config)]
        }
        _ => Vec::new(),
    }
}

/// DDNet's answer to a plain 0.6 request: counts capped at 16, true ones in the name.
fn ddnet_vanilla(mut i: Info) -> Info {
    i.name = format!("{} [{}/{}]", i.name, i.num_clients, i.max_clients);
    i.max_players = i.max_players.min(16);
    i.max_clients = i.max_clients.min(16);
    i.num_clients = i.num_clients.min(15);
    i.num_players = i.num_players.min(i.num_clients);
    i.flavour = Flavour::Vanilla06;
    i
}

fn info(w: &WorldState, config: &TeeworldsConfig, flavour: Flavour) -> Info {
    let client = |name: &str, score: i32, kind: ClientKind| Client {
        name: name.into(),
        clan: String::new(),
        country: -1,
        score,
        kind,
    };
    let mut clients: Vec<Client> = w
        .players
        .iter()
        .map(|(name, score, _)| client(name, *score, ClientKind::Player))
        .collect();
    clients.extend((0..w.bots).map(|i| client(&format!("bot {i}"), 0, ClientKind::Bot)));
    clients.extend(
        config
            .spectators
            .iter()
            .map(|name| client(name, 0, ClientKind::Spectator)),
    );
    let num_players = clients
        .iter()
        .filter(|c| c.kind != ClientKind::Spectator)
        .count() as u32;
    let mut i = Info {
        flavour,
        version: w.version.clone(),
        name: w.name.clone(),
        hostname: Some(String::new()),
        map: w.map.clone(),
        game_type: w.game.clone(),
        flags: if w.password { FLAG_PASSWORD } else { 0 },
        skill_level: Some(1),
        map_crc: Some(0x1234_5678),
        map_size: Some(5805),
        num_players,
        max_players: w.max,
        num_clients: clients.len() as u32,
        max_clients: w.max,
        clients,
    };
    match config.misbehaviour {
        Misbehaviour::LyingCounts => {
            i.num_clients = 1;
            i.num_players = i.num_players.max(2);
        }
        Misbehaviour::PlayerBomb => {
            i.clients = (0..10_000)
                .map(|n| client(&format!("b{n}"), 0, ClientKind::Player))
                .collect();
            if flavour == Flavour::Ddnet {
                // An honest count of a list spread over hundreds of packets.
                i.num_clients = 10_000;
            } else {
                // A plausible count, and as many clients as fit in one datagram (about 45 KB).
                i.num_clients = 16;
                i.clients.truncate(3_000);
            }
            i.num_players = i.num_players.min(i.num_clients);
        }
        Misbehaviour::OddStrings => {
            i.name = "\u{1}Tee\u{7f}\u{1b}[31m^1red\u{0}".replace('\u{0}', "") + &"~".repeat(300);
            i.map = "\u{200b}map\u{feff}".into();
            for c in &mut i.clients {
                c.clan = "\u{2665}\u{1}\t".into();
                c.name = format!("{}\u{3}\u{e9}", c.name);
            }
        }
        _ => {}
    }
    i
}

/// Applies the byte-level misbehaviours to one reply.
fn spoil(mut reply: Vec<u8>, config: &TeeworldsConfig) -> Vec<u8> {
    match config.misbehaviour {
        Misbehaviour::Truncated => reply.truncate(reply.len() / 2),
        Misbehaviour::OddStrings => {
            // Invalid UTF-8 in the first string after the token: the version.
            if let Some(at) = reply.iter().skip(14).position(|&b| b == 0) {
                reply.insert(14 + at + 1, 0xff);
            }
        }
        _ => {}
    }
    reply
}

/// The hostile fleet's Teeworlds servers (see [`super::hostile`]): each dialect healthy (of 4
/// clients, 2 players and 2 bots, only 0.7 tells bots apart) and each misbehaviour.
pub fn hostile() -> Vec<Hostile> {
    let server = |flavour, misbehaviour| {
        let cfg = move || TeeworldsConfig {
            flavour,
            misbehaviour,
            ..Default::default()
        };
        start(move |w| spawn(w, cfg()))
    };
    let bad = |name, reason, flavour, m| Hostile::down(name, reason, server(flavour, m));
    let (ddnet, six, seven) = (SimFlavour::Ddnet, SimFlavour::Vanilla06, SimFlavour::Seven);
    vec![
        Hostile::up("ok", 4, 24, None, server(ddnet, Misbehaviour::None)),
        Hostile::up("ok-06", 4, 24, None, server(six, Misbehaviour::None)),
        Hostile::up("ok-07", 4, 24, Some(2), server(seven, Misbehaviour::None)),
        // Drops an info request within 1 s of the last of its kind: polls 2.5 s apart never
        // trip it.
        Hostile::up(
            "flood-protected",
            4,
            24,
            None,
            server(ddnet, Misbehaviour::FloodProtected(Duration::from_secs(1))),
        ),
        // Control bytes, an ANSI escape, a 300-character tail; invalid UTF-8 in the version.
        Hostile::up(
            "str-odd",
            4,
            24,
            None,
            server(ddnet, Misbehaviour::OddStrings),
        )
        .expect_name(format!("\u{1}Tee\u{7f}\u{1b}[31m^1red{}", "~".repeat(300))),
        bad("silence", "timeout", ddnet, Misbehaviour::Silence),
        bad("truncated", "malformed", ddnet, Misbehaviour::Truncated),
        bad("truncated-07", "malformed", seven, Misbehaviour::Truncated),
        bad("lying", "malformed", ddnet, Misbehaviour::LyingCounts),
        bad("bomb", "too_large", ddnet, Misbehaviour::PlayerBomb),
        bad("bomb-06", "too_large", six, Misbehaviour::PlayerBomb),
    ]
}
