//! Every exchange driven through an arbitrary input sequence: datagrams or stream chunks,
//! closes, link failures and time passing, on a virtual clock (`protocol::exchange::replay`).
//! Every exchange must finish (no endless sending without a wait) by its deadline, never
//! panic, and never send an empty request.
//!
//! Input: the first byte picks the exchange (low three bits, and the top bit for eight more;
//! the last of those takes the script's first byte to pick among the protocols past them)
//! and the poll's options (players, rules, detail, and remembered state from an earlier poll:
//! challenge, token, dialect, challenge-less); the rest is the replay script. Match keys (session ids, echoed times, idents, tokens) are
//! fixed where the exchange takes them, so the fuzzer can learn to answer them.
#![no_main]

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::a2s::exchange::A2s;
use gameserver_exporter::protocol::exchange::oneshot::OneShot;
use gameserver_exporter::protocol::exchange::replay::replay;
use gameserver_exporter::protocol::exchange::{Exchange, Params};
use gameserver_exporter::protocol::gamespy1::exchange::Gamespy1;
use gameserver_exporter::protocol::gamespy3::GameSpy3;
use gameserver_exporter::protocol::http::then::Then;
use gameserver_exporter::protocol::minecraft::query_exchange::{McQuery, Memory};
use gameserver_exporter::protocol::minecraft::slp_exchange::Slp;
use gameserver_exporter::protocol::quake3::{self, Want};
use gameserver_exporter::protocol::{
    armagetron, cs2d, ffow, hexen2, mafia2mp, mafia2online, nadeo, openttd, quake1, quake2,
    rfactor, savage2, soldat, starmade, tribes1, ventrilo,
};
use gameserver_exporter::protocol::bzflag;
use gameserver_exporter::protocol::netquake;
use gameserver_exporter::protocol::samp::{exchange::Samp, Header};
use gameserver_exporter::protocol::teamspeak2::exchange::Ts2;
use gameserver_exporter::protocol::teamspeak3::exchange::{Login, Ts3};
use gameserver_exporter::protocol::teeworlds::exchange::Teeworlds;
use gameserver_exporter::protocol::teeworlds::machine::Tokens;
use gameserver_exporter::protocol::teeworlds::Flavour;
use gameserver_exporter::protocol::unreal2::Unreal2;
use gameserver_exporter::protocol::{
    arkrcon, ase, assettocorsa, cube2, battlefield, bedrock, buildandshoot, doom3, eco, eldewrito, hytale, kspdmp,
    factorio, farmingsimulator, fivem, gamespy2, mumble, palworld, satisfactory, terraria,
};
use gameserver_exporter::secret::Secret;
use libfuzzer_sys::fuzz_target;

/// The GameSpy 3 session id: fixed, so the fuzzer can learn to echo it.
const GAMESPY3_SESSION: i32 = 0x1020_3040;

const BUDGET: Duration = Duration::from_secs(5);

/// The tokens the Teeworlds captures in tests/fixtures/teeworlds were made with.
const TEEWORLDS_TOKENS: Tokens = Tokens {
    six: 0x12342a,
    seven: 0x1122_3344,
    browse: 1000,
};

fn run<X: Exchange>(mut x: X, start: Instant, script: &[u8]) {
    let deadline = start + BUDGET;
    let r = replay(&mut x, start, deadline, script);
    assert!(!r.stuck(), "the exchange neither finished nor waited");
    assert!(r.ended <= deadline + Duration::from_millis(1));
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, script)) = data.split_first() else {
        return;
    };
    let params = Params {
        players: pick & 0x08 != 0,
        rules: pick & 0x10 != 0,
        detail: pick & 0x20 != 0,
        ..Params::default()
    };
    let remembered = pick & 0x40 != 0;
    let start = Instant::now();
    let deadline = start + BUDGET;
    match (pick & 7) | ((pick & 0x80) >> 4) {
        0 => run(
            A2s::new(params, remembered.then_some([1, 2, 3, 4]), deadline),
            start,
            script,
        ),
        1 => {
            let header = Header {
                ip: Ipv4Addr::LOCALHOST,
                port: 7777,
            };
            run(Samp::new(params, header, deadline), start, script)
        }
        2 => {
            let memory = Memory {
                token: remembered.then_some((0x0101_0101, 1)),
                token_at: Some(start),
                local_port: Some(40000),
                stale_after: None,
            };
            run(
                McQuery::new(params, memory, Some(40000), deadline),
                start,
                script,
            )
        }
        3 => run(
            Slp::new(params, "localhost", 25565, deadline),
            start,
            script,
        ),
        4 => {
            let ping = bedrock::exchange::Ping {
                time: 1,
                client_guid: 2,
                detail: params.detail,
            };
            run(OneShot::new(ping, deadline), start, script)
        }
        5 => {
            let ping = mumble::exchange::Ping {
                ident: [1; 8],
                detail: params.detail,
            };
            run(OneShot::new(ping, deadline), start, script)
        }
        6 => {
            let get = quake3::exchange::GetStatus {
                challenge: "fuzz".into(),
                want: Want {
                    detail: params.detail,
                    players: params.players,
                    rules: params.rules,
                },
            };
            run(OneShot::new(get, deadline), start, script)
        }
        8 => run(
            GameSpy3::new(params, GAMESPY3_SESSION, remembered, deadline),
            start,
            script,
        ),
        9 => run(ase::exchange::new(&params, deadline), start, script),
        10 => run(Unreal2::new(params, deadline), start, script),
        11 => {
            // A fixed challenge, so the fuzzer can learn to echo it.
            let get = doom3::GetInfo {
                challenge: 0x1234_5678,
                params,
            };
            run(OneShot::new(get, deadline), start, script)
        }
        12 => run(Gamespy1::new(params, deadline), start, script),
        13 => {
            let query = gamespy2::exchange::Query::new(&params, *b"fuzz");
            run(OneShot::new(query, deadline), start, script)
        }
        15 => {
            // Past sixteen exchanges: the script's first byte picks one.
            let Some((&ext, script)) = script.split_first() else {
                return;
            };
            let secret = remembered.then(|| Secret::new("fuzz-secret"));
            match ext % 33 {
                0 => run(
                    terraria::exchange::new(params, secret, deadline),
                    start,
                    script,
                ),
                1 => run(
                    palworld::exchange::new(params, secret, deadline),
                    start,
                    script,
                ),
                2 => {
                    // With players asked, `/players.json` follows `getinfo`.
                    let get = fivem::exchange::GetInfo {
                        challenge: "fuzz".into(),
                        detail: params.detail,
                        rules: params.rules,
                    };
                    let list = fivem::players::PlayersApi::new(params.players);
                    run(
                        Then::new(OneShot::new(get, deadline), list, deadline),
                        start,
                        script,
                    )
                }
                3 => {
                    // With a token (remembered), the HTTPS API follows the query.
                    let poll = satisfactory::exchange::PollState {
                        cookie: 0x0101_0101_0101_0101,
                        detail: params.detail,
                    };
                    let api = satisfactory::api::StateApi::new(secret);
                    let x = Then::new(OneShot::new(poll, deadline), api, deadline);
                    run(x, start, script)
                }
                4 => {
                    // A fixed login id (the first command takes the next two), so the fuzzer
                    // can learn to answer it.
                    let x = factorio::exchange::new(params, secret, 7, deadline);
                    run(x, start, script)
                }
                9 => {
                    // A fixed login id, as Factorio's.
                    let x = arkrcon::exchange::new(params, secret, 7, deadline);
                    run(x, start, script)
                }
                12 => {
                    // The single-game JSON pages: the script's next byte picks one.
                    let Some((&page, script)) = script.split_first() else {
                        return;
                    };
                    match page % 6 {
                        5 => run(hytale::exchange::new(params, deadline), start, script),
                        4 => run(kspdmp::exchange::new(params, deadline), start, script),
                        2 => run(eldewrito::exchange::new(params, deadline), start, script),
                        0 => run(assettocorsa::exchange::new(params, 7, deadline), start, script),
                        1 => run(buildandshoot::exchange::new(params, deadline), start, script),
                        _ => run(eco::exchange::new(params, deadline), start, script),
                    }
                }
                7 => run(quake2::exchange::new(&params, deadline), start, script),
                8 => run(quake1::exchange::new(&params, deadline), start, script),
                11 => run(hexen2::exchange::new(&params, deadline), start, script),
                10 => run(
                    farmingsimulator::exchange::new(params, secret, deadline),
                    start,
                    script,
                ),
                13 => run(openttd::exchange::Openttd::new(params, deadline), start, script),
                14 => run(armagetron::exchange::Armagetron::new(&params, deadline), start, script),
                15 => {
                    // GameSpy 3's session id, so seeds of its replies reach the JC2-MP body.
                    let x = GameSpy3::in_dialect(
                        gameserver_exporter::protocol::jc2mp::DIALECT,
                        params,
                        GAMESPY3_SESSION,
                        remembered,
                        deadline,
                    );
                    run(x, start, script)
                }
                16 => {
                    // SA:MP's header, so seeds of its replies reach the VC:MP exchange once
                    // their magic is learnt.
                    let header = Header {
                        ip: std::net::Ipv4Addr::LOCALHOST,
                        port: 8192,
                    };
                    let x = Samp::in_dialect(
                        gameserver_exporter::protocol::vcmp::DIALECT,
                        params,
                        header,
                        deadline,
                    );
                    run(x, start, script)
                }
                17 => run(cs2d::exchange::new(&params, deadline), start, script),
                18 => run(Ts2::new(params, 8767, deadline), start, script),
                19 => run(rfactor::exchange::new(&params, deadline), start, script),
                20 => run(ffow::exchange::new(&params, deadline), start, script),
                // 28: the brief's number for StarMade (22-27 are other branches'; the
                // integrator renumbers).
                28 => run(starmade::exchange::new(params, deadline), start, script),
                // A fixed nonce, so the fuzzer can learn to echo the request (the info
                // ping's and, for Sauerbraten with players asked, extinfo's: seed
                // cube2-sauer-players).
                29 => run(
                    cube2::exchange::new(&params, 0x2A2A_2A2A, deadline),
                    start,
                    script,
                ),
                // A fixed id (0x2A2A) and keys, so the fuzzer can learn to echo the id.
                30 => {
                    let key = ventrilo::obfuscation::Key::new(1, 1);
                    let keys = ventrilo::Keys { header: key, data: key };
                    let x = ventrilo::exchange::Ventrilo::new(params, 0x2A2A, keys, deadline);
                    run(x, start, script)
                }
                31 => run(bzflag::exchange::Bzflag::new(params, deadline), start, script),
                32 => run(netquake::exchange::NetQuake::new(params, deadline), start, script),
                21 => {
                    // Handles from 0x8000_0001, as gbxremote's, so the fuzzer can learn them.
                    let login = secret.map(|password| nadeo::exchange::Login {
                        user: "User".into(),
                        password,
                    });
                    let x = nadeo::exchange::Nadeo::new(params, login, 1, deadline);
                    run(x, start, script)
                }
                // A fixed key (2A 2A, qstat's), so the fuzzer can learn to echo it.
                22 => run(
                    tribes1::exchange::new::<{ tribes1::TRIBES }>(&params, 0x2A2A, deadline),
                    start,
                    script,
                ),
                23 => run(
                    tribes1::exchange::new::<{ tribes1::STARSIEGE }>(&params, 0x2A2A, deadline),
                    start,
                    script,
                ),
                24 => run(savage2::exchange::new(&params, deadline), start, script),
                25 => run(
                    mafia2mp::exchange::new(mafia2mp::DIALECT, &params, deadline),
                    start,
                    script,
                ),
                26 => run(
                    mafia2mp::exchange::new(mafia2online::DIALECT, &params, deadline),
                    start,
                    script,
                ),
                27 => run(
                    soldat::exchange::Soldat::new(params, deadline),
                    start,
                    script,
                ),
                5 => {
                    // Sequence numbers from 1, so the fuzzer can learn to answer them.
                    let x = battlefield::exchange::Battlefield::new(params, 1, deadline);
                    run(x, start, script)
                }
                _ => {
                    let login = secret.map(|password| Login {
                        username: "serveradmin".into(),
                        password,
                    });
                    run(Ts3::new(params, 9987, login, deadline), start, script)
                }
            }
        }
        _ => {
            let hint = remembered.then_some(Flavour::Seven);
            let min_gap = Duration::from_millis(500);
            let x = Teeworlds::new(params, hint, TEEWORLDS_TOKENS, min_gap, deadline);
            run(x, start, script)
        }
    }
});
