//! Writes the seed corpus under `fuzz/corpus/<target>/`: the byte dumps of the published
//! protocol descriptions (as the unit tests spell them out) and the bytes the unit tests and
//! simulators build, through the crate's own encoders. Deterministic; run it again after a
//! codec change and commit the diff:
//!
//! ```text
//! cd fuzz && cargo run --example seed_corpus --features seeds
//! ```

use std::fs;
use std::net::Ipv4Addr;
use std::path::Path;

use encoding_rs::{WINDOWS_1251, WINDOWS_1252};
use gameserver_exporter::protocol::a2s::split::{encode_split, Format, SplitOptions};
use gameserver_exporter::protocol::a2s::{self, Engine, GoldSrcMod, Info, SourceTv, TheShip};
use gameserver_exporter::protocol::ase;
use gameserver_exporter::protocol::bedrock;
use gameserver_exporter::protocol::doom3::{self as d3, Dialect};
use gameserver_exporter::protocol::farmingsimulator;
use gameserver_exporter::protocol::fivem;
use gameserver_exporter::protocol::gamespy3 as gs3;
use gameserver_exporter::protocol::minecraft::{legacy, query, slp, varint};
use gameserver_exporter::protocol::mumble::{self, Pong, Version};
use gameserver_exporter::protocol::quake3::{self, Command, PlayerLine};
use gameserver_exporter::protocol::{hexen2, quake1, quake2};
use gameserver_exporter::protocol::samp::{self, Client, Detailed, Header, Opcode};
use gameserver_exporter::protocol::satisfactory::{self, ServerState, SubState};
use gameserver_exporter::protocol::teamspeak3 as ts3;
use gameserver_exporter::protocol::teeworlds::{self as tw, seven, six};
use gameserver_exporter::protocol::unreal2::{self as ue2, Kind, Tail};
use gameserver_exporter::protocol::{gamespy1, gamespy2};
use gameserver_exporter::simulate::ase as ase_sim;
use gameserver_exporter::simulate::gamespy3 as gs3_sim;
use gameserver_exporter::simulate::minecraft::{status_text, McConfig, MotdStyle};
use gameserver_exporter::simulate::WorldState;

/// Bytes from a dump written as hex pairs separated by spaces.
fn hex(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).expect("hex pair"))
        .collect()
}

fn build(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    f(&mut out);
    out
}

struct Corpus {
    dir: std::path::PathBuf,
}

impl Corpus {
    fn new(root: &Path, target: &str) -> Corpus {
        let dir = root.join(target);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create corpus dir");
        Corpus { dir }
    }

    fn add(&self, name: &str, bytes: &[u8]) {
        fs::write(self.dir.join(name), bytes).expect("write seed");
    }
}

fn world() -> WorldState {
    WorldState {
        players: vec![("alice".into(), 12, 301.5), ("bob".into(), -3, 12.0)],
        rules: vec![
            ("mp_friendlyfire".into(), "0".into()),
            ("sv_gravity".into(), "800".into()),
        ],
        ..WorldState::default()
    }
}

fn a2s_infos() -> Vec<(&'static str, Info)> {
    let source = Info {
        name: "Simulated Server".into(),
        map: "de_dust2".into(),
        folder: "cstrike".into(),
        game: "Counter-Strike: Source".into(),
        app_id: 240,
        players: 2,
        max_players: 32,
        version: "1.0.0.0".into(),
        ..Info::default()
    };
    let edf = Info {
        game_port: Some(27015),
        steam_id: Some(0x0110_0001_0000_0001),
        sourcetv: Some(SourceTv {
            port: 27020,
            name: "SourceTV".into(),
        }),
        keywords: Some("alltalk,increased_maxplayers".into()),
        game_id: Some(240),
        ..source.clone()
    };
    let ship = Info {
        app_id: a2s::THE_SHIP_APP_ID,
        the_ship: Some(TheShip {
            mode: 1,
            witnesses: 3,
            duration: 60,
        }),
        ..source.clone()
    };
    let goldsrc = Info {
        engine: Engine::GoldSrc,
        protocol: 47,
        address: Some("127.0.0.1:27015".into()),
        folder: "cstrike".into(),
        game: "Counter-Strike".into(),
        app_id: 0,
        version: String::new(),
        ..source.clone()
    };
    let goldsrc_mod = Info {
        goldsrc_mod: Some(GoldSrcMod {
            link: Some("http://example.invalid".into()),
            download: Some(String::new()),
            version: Some(1),
            size: Some(184_000_000),
            kind: Some(1),
            dll: Some(0),
        }),
        ..goldsrc.clone()
    };
    vec![
        ("info_source", source),
        ("info_source_edf", edf),
        ("info_the_ship", ship),
        ("info_goldsrc", goldsrc),
        ("info_goldsrc_mod", goldsrc_mod),
    ]
}

fn a2s_players() -> Vec<a2s::Player> {
    world()
        .players
        .iter()
        .enumerate()
        .map(|(i, (name, score, duration))| a2s::Player {
            index: i as u8,
            name: name.clone(),
            score: *score,
            duration: *duration,
        })
        .collect()
}

fn a2s(root: &Path) {
    let c = Corpus::new(root, "a2s_reply");
    for (name, info) in a2s_infos() {
        c.add(name, &build(|o| a2s::encode_info(&info, o)));
    }
    c.add(
        "players",
        &build(|o| a2s::encode_players(&a2s_players(), o)),
    );
    c.add("players_empty", &build(|o| a2s::encode_players(&[], o)));
    c.add("rules", &build(|o| a2s::encode_rules(&world().rules, o)));
    // Dumps from valve-a2s.txt.
    c.add("challenge_dump", &hex("FF FF FF FF 41 32 42 59 45"));
    c.add("ping_goldsrc_dump", &hex("FF FF FF FF 6A 00"));
    c.add(
        "ping_source_dump",
        &hex("FF FF FF FF 6A 30 30 30 30 30 30 30 30 30 30 30 30 30 30 00"),
    );

    let c = Corpus::new(root, "a2s_request");
    c.add(
        "info_dump",
        &hex("FF FF FF FF 54 53 6F 75 72 63 65 20 45 6E 67 69 6E 65 20 51 75 65 72 79 00"),
    );
    c.add(
        "info_challenge",
        &build(|o| a2s::encode_info_request(Some(*b"2BYE"), o)),
    );
    c.add(
        "players_no_challenge",
        &build(|o| a2s::encode_player_request(a2s::NO_CHALLENGE, o)),
    );
    c.add(
        "rules_challenge",
        &build(|o| a2s::encode_rules_request(*b"2BYE", o)),
    );
    c.add("getchallenge_dump", &hex("FF FF FF FF 57"));
    c.add("ping_dump", &hex("FF FF FF FF 69"));

    // a2s_split: a cap byte, then datagrams each behind a one-byte length.
    let c = Corpus::new(root, "a2s_split");
    let message = build(|o| a2s::encode_rules(&world().rules, o));
    let mut long = world();
    long.rules = (0..20)
        .map(|i| (format!("rule_{i}"), format!("value {i}")))
        .collect();
    let long_message = build(|o| a2s::encode_rules(&long.rules, o));
    let layouts = [
        ("goldsrc", Format::GoldSrc, false, &message),
        (
            "source",
            Format::Source { size_field: true },
            false,
            &message,
        ),
        (
            "source_old",
            Format::Source { size_field: false },
            false,
            &message,
        ),
        (
            "source_bzip2",
            Format::Source { size_field: true },
            true,
            &long_message,
        ),
    ];
    for (name, format, compress, msg) in layouts {
        let opts = SplitOptions {
            format,
            fragment_size: 24,
            compress,
        };
        let fragments = encode_split(msg, 0x1234, opts);
        let mut input = vec![16u8];
        // Reversed, with a duplicate: the reassembler must wait for packet 0.
        for f in fragments.iter().rev().chain(fragments.first()) {
            input.push(u8::try_from(f.len()).expect("fragment below 256 bytes"));
            input.extend_from_slice(f);
        }
        c.add(name, &input);
    }
    let single = build(|o| a2s::encode_challenge(*b"2BYE", o));
    let mut input = vec![4u8, single.len() as u8];
    input.extend_from_slice(&single);
    c.add("unsplit", &input);
}

fn samp(root: &Path) {
    let c = Corpus::new(root, "samp_reply");
    let h = Header {
        ip: Ipv4Addr::new(127, 0, 0, 1),
        port: 7777,
    };
    for op in Opcode::ALL {
        if op != Opcode::Ping {
            c.add(
                &format!("request_{}", op.byte() as char),
                &build(|o| samp::encode_request(&h, op, o)),
            );
        }
    }
    c.add("request_p", &build(|o| samp::encode_ping(&h, *b"ping", o)));
    c.add(
        "reply_p",
        &build(|o| samp::encode_ping_reply(&h, *b"ping", o)),
    );
    let w = world();
    for (page, encoding, host) in [
        ("1252", WINDOWS_1252, "Café Grove Street"),
        ("1251", WINDOWS_1251, "Сервер Лос-Сантос"),
    ] {
        let info = samp::Info {
            password: false,
            players: 2,
            max: 50,
            hostname: host.into(),
            gamemode: "Freeroam".into(),
            language: "English".into(),
        };
        c.add(
            &format!("reply_i_{page}"),
            &build(|o| samp::encode_info(&h, &info, encoding, o)),
        );
        c.add(
            &format!("reply_r_{page}"),
            &build(|o| samp::encode_rules(&h, &w.rules, encoding, o)),
        );
        let clients: Vec<Client> = w
            .players
            .iter()
            .map(|(n, s, _)| Client {
                name: n.clone(),
                score: *s,
            })
            .collect();
        c.add(
            &format!("reply_c_{page}"),
            &build(|o| samp::encode_clients(&h, &clients, encoding, o)),
        );
        let detailed: Vec<Detailed> = w
            .players
            .iter()
            .enumerate()
            .map(|(i, (n, s, _))| Detailed {
                id: i as u8,
                name: n.clone(),
                score: *s,
                ping: 42,
            })
            .collect();
        c.add(
            &format!("reply_d_{page}"),
            &build(|o| samp::encode_detailed(&h, &detailed, encoding, o)),
        );
    }
    let omp = samp::OpenMp {
        discord: "discord.gg/example".into(),
        light_banner: "https://example.invalid/light.png".into(),
        dark_banner: String::new(),
        logo: "https://example.invalid/logo.png".into(),
    };
    c.add(
        "reply_o",
        &build(|o| samp::encode_open_mp(&h, &omp, WINDOWS_1252, o)),
    );
    // VC:MP's dialect of the same codec: `MP04` replies, a version in `i`, names alone in `c`.
    let vc = &gameserver_exporter::protocol::vcmp::DIALECT;
    let info = samp::Info {
        password: false,
        players: 2,
        max: 100,
        hostname: "Vice Deathmatch".into(),
        gamemode: "VC-DM".into(),
        language: "Vice City".into(),
    };
    c.add(
        "vcmp_reply_i",
        &build(|o| samp::encode_info_in(vc, &h, &info, "04rel006", WINDOWS_1252, o)),
    );
    let names: Vec<Client> = ["Tommy", "Lance"]
        .iter()
        .map(|n| Client {
            name: (*n).into(),
            score: 0,
        })
        .collect();
    c.add(
        "vcmp_reply_c",
        &build(|o| samp::encode_clients_in(vc, &h, &names, WINDOWS_1252, o)),
    );
}

fn minecraft(root: &Path) {
    // mc_varint_frame: a cap byte (x4 bytes), then the stream.
    let c = Corpus::new(root, "mc_varint_frame");
    let mut query_bytes = vec![64u8];
    slp::encode_status_query("localhost", 25565, &mut query_bytes);
    c.add("handshake_and_status_request", &query_bytes);
    let mut reply = vec![255u8];
    slp::encode_status_response(
        r#"{"version":{"name":"1.20.1","protocol":763},"description":"hi"}"#,
        &mut reply,
    );
    slp::encode_ping(0x0102_0304_0506_0708, &mut reply);
    c.add("status_response_and_pong", &reply);
    for (name, v) in [
        ("varint_minus_one", -1),
        ("varint_max", i32::MAX),
        ("varint_300", 300),
    ] {
        let mut bytes = vec![8u8];
        varint::encode_varint(v, &mut bytes);
        c.add(name, &bytes);
    }
    c.add("legacy_kick_prefix", &[16, 0xff, 0x00, 0x03, 0x00, 0x41]);

    let c = Corpus::new(root, "mc_status_json");
    c.add(
        "document_example",
        br#"{ "version": { "name": "1.7.2", "protocol": 4 }, "players": { "max": 100, "online": 5, "sample":[ {"name":"Thinkofdeath", "id":"4566e69fc90748ee8d71d7ba5aa00d20"} ] }, "description": {"text":"Hello world"}, "favicon": "data:image/png;base64,<data>" }"#,
    );
    for (name, style) in [
        ("sim_plain", MotdStyle::Plain),
        ("sim_component", MotdStyle::Component),
        ("sim_array", MotdStyle::Array),
    ] {
        let config = McConfig {
            motd: style,
            trailing_data: style == MotdStyle::Array,
            ..McConfig::default()
        };
        c.add(name, status_text(&world(), &config).as_bytes());
    }
    c.add(
        "translate_with",
        br#"{"description":{"translate":"%s and %2$s","with":["a",{"text":"b","extra":[{"keybind":"key.jump"}]}]},"players":{"online":"3","max":1.5e1}}"#,
    );
    c.add(
        "forge",
        br#"{"modinfo":{"type":"FML","modList":[{"modid":"a"}]},"forgeData":{"channels":[{}],"mods":[]},"description":"\u00a7aGreen \u00a7lbold"}"#,
    );

    let c = Corpus::new(root, "mc_legacy");
    c.add(
        "ping_16",
        &build(|o| legacy::encode_ping(legacy::Variant::V16, "localhost", 25565, o)),
    );
    c.add(
        "ping_14",
        &build(|o| legacy::encode_ping(legacy::Variant::V14, "", 0, o)),
    );
    c.add(
        "ping_beta",
        &build(|o| legacy::encode_ping(legacy::Variant::Beta, "", 0, o)),
    );
    let v16 = legacy::LegacyStatus {
        protocol: Some(47),
        version: Some("1.4.2".into()),
        motd: "A Minecraft Server".into(),
        online: 0,
        max: 20,
    };
    let beta = legacy::LegacyStatus {
        protocol: None,
        version: None,
        motd: "A §cMinecraft Server".into(),
        online: 0,
        max: 10,
    };
    for (name, s) in [("kick_16", &v16), ("kick_beta", &beta)] {
        let text = legacy::encode_kick_text(s);
        c.add(name, &build(|o| legacy::encode_kick(&text, o)));
        c.add(&format!("{name}_text"), text.as_bytes());
    }

    let c = Corpus::new(root, "mcquery");
    // Dumps from minecraft-query.txt.
    c.add("handshake_request_dump", &hex("FE FD 09 00 00 00 01"));
    c.add(
        "handshake_reply_dump",
        &hex("09 00 00 00 01 39 35 31 33 33 30 37 00"),
    );
    c.add(
        "basic_request_dump",
        &hex("FE FD 00 00 00 00 01 00 3A 0D 5F"),
    );
    c.add(
        "basic_reply_dump",
        &hex(
            "00 00 00 00 01 41 20 4D 69 6E 65 63 72 61 66 74 20 53 65 72 76 65 72 00
              53 4D 50 00 77 6F 72 6C 64 00 32 00 32 30 00 DD 63 31 32 37 2E 30 2E 30 2E 31 00",
        ),
    );
    c.add(
        "full_request_dump",
        &hex("FE FD 00 00 00 00 01 00 3A 0D 5F 00 00 00 00"),
    );
    let full = query::FullStat {
        values: vec![
            ("hostname".into(), "A Minecraft Server".into()),
            ("gametype".into(), "SMP".into()),
            ("numplayers".into(), "2".into()),
            ("maxplayers".into(), "20".into()),
        ],
        players: vec!["barneygale".into(), "Vivalahelvig".into()],
    };
    c.add(
        "full_reply_vanilla",
        &build(|o| query::encode_full_stat_reply(1, &full, &query::VANILLA_PADDING, o)),
    );
    c.add(
        "full_reply_geyser",
        &build(|o| query::encode_full_stat_reply(1, &full, b"GeyserMC\0\0\0", o)),
    );
}

/// The reply captured from Murmur 1.3.4 (users=42, bandwidth=72000), the simulator's shape
/// and the request.
fn mumble(root: &Path) {
    let c = Corpus::new(root, "mumble");
    c.add(
        "request",
        &build(|o| mumble::encode_ping(*b"\x01\x02\x03\x04\x05\x06\x07\x08", o)),
    );
    c.add(
        "reply_murmur_1_3_4",
        &hex("00 01 03 04 01 02 03 04 05 06 07 08 00 00 00 00 00 00 00 2a 00 01 19 40"),
    );
    let pong = Pong {
        version: Version {
            major: 1,
            minor: 5,
            patch: 6,
        },
        ident: *b"simulate",
        users: 3,
        max_users: 100,
        bandwidth: 558_000,
    };
    c.add("reply_sim", &build(|o| mumble::encode_pong(&pong, o)));
}

/// The pong captured from bedrock-protocol (jsp-raknet), the vanilla layout, a short one and
/// the ping.
fn bedrock(root: &Path) {
    let c = Corpus::new(root, "bedrock");
    let time = 1_234_567;
    c.add(
        "ping",
        &build(|o| bedrock::encode_ping(time, 0x1122_3344_5566_7788, o)),
    );
    let pongs: [(&str, u64, &str); 3] = [
        (
            "pong_jsp_raknet",
            0x6cfc_0125_2d54_3b22,
            "MCPE;§aP1 §lInterop;2169;1.26.45;0;7;7853153109413215010;interop level;Creative;1;39460;39460;0;",
        ),
        (
            "pong_vanilla",
            0xb7ee_7e5b_5c36_6d31,
            "MCPE;Dedicated Server;390;1.14.60;0;10;13253860892328930865;Bedrock level;Survival;1;19132;19133;",
        ),
        ("pong_after_guid", 1, "MCEE;Edu;1;1.21.0;1;40;0"),
    ];
    for (name, guid, id) in pongs {
        c.add(
            name,
            &build(|o| bedrock::encode_pong(time, guid, id.as_bytes(), o)),
        );
    }
}

fn quake3(root: &Path) {
    let c = Corpus::new(root, "quake3");
    // Replies captured from the real OpenArena (ioquake3) and Nexuiz (DarkPlaces) servers.
    let captures: [(&str, &[u8]); 4] = [
        (
            "oa_getstatus",
            include_bytes!("../../src/protocol/quake3/testdata/oa_getstatus.bin"),
        ),
        (
            "oa_getinfo",
            include_bytes!("../../src/protocol/quake3/testdata/oa_getinfo.bin"),
        ),
        (
            "dp_getstatus",
            include_bytes!("../../src/protocol/quake3/testdata/dp_getstatus.bin"),
        ),
        (
            "dp_getinfo",
            include_bytes!("../../src/protocol/quake3/testdata/dp_getinfo.bin"),
        ),
    ];
    for (name, bytes) in captures {
        c.add(name, bytes);
    }
    c.add(
        "request_getstatus",
        &build(|o| quake3::encode_request(Command::Status, "deadbeef", o)),
    );
    c.add(
        "request_getinfo",
        &build(|o| quake3::encode_request(Command::Info, "", o)),
    );
    let vars: Vec<(String, String)> = [
        ("challenge", "deadbeef"),
        ("sv_hostname", "^1Red ^x0F0Green ^^caret"),
        ("sv_maxclients", "8"),
        ("sv_privateClients", "2"),
        ("bots", "1"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let players = vec![
        PlayerLine {
            score: Some(5),
            ping: Some(40),
            team: None,
            name: "^4Sarge".into(),
        },
        PlayerLine {
            score: Some(-1),
            ping: Some(0),
            team: Some(2),
            name: "[BOT]x".into(),
        },
    ];
    c.add(
        "status_built",
        &build(|o| quake3::encode_status_reply(&vars, &players, o)),
    );
    c.add(
        "info_built",
        &build(|o| quake3::encode_info_reply(&vars, o)),
    );
    c.add(
        "status_no_players",
        &build(|o| quake3::encode_status_reply(&vars[..3], &[], o)),
    );
}

/// The real mvdsv 0.35 reply (`src/protocol/quake1`'s fixture) and what the simulator's
/// encoders write in both dialects.
fn quake2(root: &Path) {
    // Rust's WebRCON: the upgrade answer, then a server's unmasked text frame holding a
    // `serverinfo` reply (16-bit extended length), and a close frame.
    let c = Corpus::new(root, "webrcon");
    c.add(
        "upgrade",
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
    );
    let info = br#"{"Message":"{\"Hostname\":\"Seed\",\"MaxPlayers\":50,\"Players\":3,\"Queued\":2,\"Joining\":1,\"EntityCount\":184213,\"Framerate\":59,\"Memory\":6144,\"MemoryUsageSystem\":9120,\"NetworkIn\":51234,\"NetworkOut\":812345,\"Uptime\":86400}","Identifier":1,"Type":"Generic","Stacktrace":""}"#;
    let mut frame = vec![0x81, 126];
    frame.extend_from_slice(&(info.len() as u16).to_be_bytes());
    frame.extend_from_slice(info);
    frame.extend_from_slice(&[0x88, 0x02, 0x03, 0xe8]);
    c.add("serverinfo_frame", &frame);
    // 7 Days to Die's telnet console: the password prompt, the greeting and a `mem` line.
    let c = Corpus::new(root, "sdtd_mem");
    c.add("prompt", b"Please enter password:\r\n");
    c.add(
        "mem",
        b"Logon successful.\r\n\r\n2024-01-01T00:00:00 5400.000 INF Time: 90.00m FPS: 35.12 Heap: 512.0MB Max: 1024.0MB Chunks: 123 CGO: 45 Ply: 3 Zom: 12 Ent: 20 (45) Items: 7 CO: 2 RSS: 1234.5MB\r\n",
    );
    let c = Corpus::new(root, "quake2");
    c.add("request", &build(quake2::encode_request));
    c.add(
        "mvdsv_status",
        b"\xff\xff\xff\xffn\\*gamedir\\ktx\\maxfps\\77\\maxspectators\\8\\hostname\\unnamed\\deathmatch\\3\\pm_ktjump\\1\\*version\\MVDSV 0.35\\*z_ext\\511\\maxclients\\8\\*qvm\\so\\*progs\\so\\ktxver\\1.42\\timelimit\\30\\map\\start\\status\\Standby\n\x00",
    );
    let vars = vec![
        ("hostname".to_string(), "^1Q2".to_string()),
        ("maxclients".to_string(), "8".to_string()),
        ("mapname".to_string(), "q2dm1".to_string()),
    ];
    let mut lines = Vec::new();
    quake2::encode_player_line(3, 40, "alice", &mut lines);
    quake2::encode_player_line(0, 0, "bot", &mut lines);
    c.add(
        "q2_status",
        &build(|o| quake2::encode_frame(quake2::HEADER, &vars, &lines, o)),
    );
    let mut lines = Vec::new();
    let p = quake1::Player {
        userid: Some(1),
        frags: Some(5),
        minutes: Some(2),
        ping: Some(30),
        name: "alice".into(),
        skin: "base".into(),
        top: Some(4),
        bottom: Some(4),
    };
    quake1::encode_player_line(&p, &mut lines);
    c.add(
        "qw_status",
        &build(|o| quake2::encode_frame(quake1::HEADER, &vars, &lines, o)),
    );
    c.add(
        "hw_status",
        &build(|o| quake2::encode_frame(hexen2::HEADER, &vars, &lines, o)),
    );
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    a2s(&root);
    samp(&root);
    minecraft(&root);
    mumble(&root);
    bedrock(&root);
    quake3(&root);
    quake2(&root);
    teeworlds(&root);
    fivem(&root);
    satisfactory(&root);
    teamspeak3(&root);
    rcon(&root);
    battlefield(&root);
    openttd(&root);
    armagetron(&root);
    gamespy1(&root);
    gamespy2(&root);
    gamespy3(&root);
    ase(&root);
    unreal2(&root);
    doom3(&root);
    http_apis(&root);
    println!("seeds written under {}", root.display());
}

/// The replies captured from real DDNet 16.4 and Teeworlds 0.7.5 servers (the test fixtures),
/// plus what our encoders and the simulator write.
fn teeworlds(root: &Path) {
    let c = Corpus::new(root, "teeworlds");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/teeworlds");
    let mut names: Vec<_> = fs::read_dir(&fixtures)
        .expect("fixtures dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    for path in names {
        let bytes = fs::read(&path).expect("read fixture");
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .unwrap_or("fixture");
        c.add(&format!("real_{name}"), &bytes);
    }
    c.add("request_ext", &build(|o| six::encode_request(0x12342a, o)));
    c.add(
        "request_06",
        &build(|o| six::encode_vanilla_request(0x2a, o)),
    );
    c.add(
        "request_token",
        &build(|o| seven::encode_token_request(0x1122_3344, o)),
    );
    c.add(
        "request_07",
        &build(|o| seven::encode_info_request(7, 0x1122_3344, 5, o)),
    );
    c.add(
        "reply_token",
        &build(|o| seven::encode_token_reply(0x1122_3344, 7, o)),
    );
    let info = tw::Info {
        flavour: tw::Flavour::Ddnet,
        version: "0.6.4, 16.4".into(),
        name: "Seed".into(),
        hostname: Some(String::new()),
        map: "dm1".into(),
        game_type: "DM".into(),
        flags: 2,
        skill_level: Some(1),
        map_crc: Some(0x1234_5678),
        map_size: Some(5805),
        num_players: 3,
        max_players: 16,
        num_clients: 4,
        max_clients: 16,
        clients: (0..4)
            .map(|i| tw::Client {
                name: format!("tee{i}"),
                clan: "c".into(),
                country: i - 1,
                score: -9999,
                kind: [tw::ClientKind::Player, tw::ClientKind::Spectator][(i % 2) as usize],
            })
            .collect(),
    };
    c.add(
        "reply_06",
        &build(|o| six::encode_vanilla(&info, 0x2a, 16, o)),
    );
    for (n, p) in six::encode_extended(&info, 0x12342a, 120)
        .iter()
        .enumerate()
    {
        c.add(&format!("reply_ext_{n}"), p);
    }
    c.add(
        "reply_07",
        &build(|o| seven::encode_info_reply(&info, 0x1122_3344, 7, 5, o)),
    );
}

/// GameSpy 1 datagrams (see fuzz_targets/gamespy1.rs): the netPanzer capture, and the replies
/// the simulator sends in each layout, in order, reversed and with a part missing.
fn gamespy1(root: &Path) {
    use gameserver_exporter::simulate::gamespy1::pairs;
    let c = Corpus::new(root, "gamespy1");
    let datagram = |d: &[u8]| {
        let mut e = (d.len() as u16).to_le_bytes().to_vec();
        e.extend_from_slice(d);
        e
    };
    let netpanzer = include_bytes!("../../tests/fixtures/gamespy1/netpanzer_087_status.0.bin");
    c.add("netpanzer_capture", &datagram(netpanzer));
    let w = world();
    let reply = pairs(gamespy1::Query::Status, &w, false);
    for (name, style) in [
        ("unreal", gamespy1::Style::Unreal),
        ("queryid_first", gamespy1::Style::QueryIdFirst),
        ("bare", gamespy1::Style::Bare),
    ] {
        let parts = gamespy1::encode_reply(&reply, 17, 60, style);
        c.add(
            &format!("{name}_in_order"),
            &parts.iter().flat_map(|p| datagram(p)).collect::<Vec<_>>(),
        );
        c.add(
            &format!("{name}_reversed"),
            &parts
                .iter()
                .rev()
                .flat_map(|p| datagram(p))
                .collect::<Vec<_>>(),
        );
        let missing: Vec<u8> = parts.iter().skip(1).flat_map(|p| datagram(p)).collect();
        c.add(&format!("{name}_missing"), &missing);
    }
}

/// GameSpy 2 inputs (see fuzz_targets/gamespy2.rs: a sections byte, then the reply): the
/// simulator's replies with and without count bytes, and for each single section.
fn gamespy2(root: &Path) {
    use gameserver_exporter::simulate::gamespy2::reply;
    let c = Corpus::new(root, "gamespy2");
    let w = world();
    let cases = [
        ("all", 7u8, gamespy2::Sections::ALL),
        (
            "info",
            1,
            gamespy2::Sections {
                info: true,
                players: false,
                teams: false,
            },
        ),
        (
            "players",
            2,
            gamespy2::Sections {
                info: false,
                players: true,
                teams: false,
            },
        ),
        (
            "teams",
            4,
            gamespy2::Sections {
                info: false,
                players: false,
                teams: true,
            },
        ),
    ];
    for (name, flags, sections) in cases {
        for omit_counts in [false, true] {
            let request = gamespy2::Request {
                id: *b"seed",
                sections,
            };
            let r = reply(&request, &w, omit_counts);
            let mut out = vec![flags];
            gamespy2::encode_reply(&r, sections, &mut out);
            let suffix = if omit_counts { "_no_counts" } else { "" };
            c.add(&format!("{name}{suffix}"), &out);
        }
    }
}

/// GameSpy 3: the requests qstat sends, a handshake reply, and the simulator's reply whole and
/// split into parts (the `exchanges` target's GameSpy 3 seeds are checked in).
fn gamespy3(root: &Path) {
    let session = 0x1020_3040;
    let c = Corpus::new(root, "gamespy3");
    c.add("handshake", &build(|o| gs3::encode_handshake(session, o)));
    c.add(
        "request_challenge",
        &build(|o| gs3::encode_request(session, Some(-1_287_574_694), gs3::FULL_REQUEST, o)),
    );
    c.add(
        "request_plain",
        &build(|o| gs3::encode_request(session, None, gs3::FULL_REQUEST, o)),
    );
    let handshake = build(|o| gs3::encode_handshake_reply(session, -1_287_574_694, o));
    c.add("handshake_reply", &handshake);
    let reply = gs3_sim::reply_of(&world());
    let mut whole = Vec::new();
    gs3::encode_reply(session, &reply, 1400, &mut whole);
    c.add("reply_one_part", &whole[0]);
    let mut split = Vec::new();
    gs3::encode_reply(session, &reply, 120, &mut split);
    for (i, part) in split.iter().enumerate() {
        c.add(&format!("reply_part_{i}"), part);
    }
}

/// ASE: the request, the Multi Theft Auto reply the unit test spells out, and the simulator's.
fn ase(root: &Path) {
    let c = Corpus::new(root, "ase");
    c.add("request", ase::REQUEST);
    let mta = b"EYE1\x04mta\x0622003\x13Default MTA Server\x09Freeroam\x05None\x041.6\x020\x022\x0332\
\x08weather\x021\x01\x3f\x0d#FF0000alice\x01\x01\x020\x0345\x01\x3f\x04bob\x01\x01\x0312\x04200\x01";
    c.add("reply_mta", mta);
    let reply = ase_sim::reply_of(&world(), 22003);
    c.add("reply_sim", &build(|o| ase::encode_reply(&reply, o)));
}

/// Unreal 2: a UT2004 info reply, a Killing Floor one, rules, players (one in UCS-2), the
/// request.
fn unreal2(root: &Path) {
    let c = Corpus::new(root, "unreal2");
    c.add(
        "request_info",
        &build(|o| ue2::encode_request(Kind::Info, o)),
    );
    let info = ue2::Info {
        game_port: 7777,
        query_port: 7778,
        name: "\u{1b}\u{7f}\u{1}\u{1}Seed Server".into(),
        map: "DM-Rankin".into(),
        game_type: "xDeathMatch".into(),
        players: 2,
        max_players: 16,
        tail: Some(Tail {
            ping: 0,
            flags: 1,
            skill: "5".into(),
        }),
        ..ue2::Info::default()
    };
    let info_bytes = build(|o| ue2::encode_info(ue2::UT2004, &info, o));
    c.add("info_ut2004", &info_bytes);
    let kf = ue2::Info {
        waves: Some((3, 10)),
        game_type: "KFGameType".into(),
        ..info.clone()
    };
    c.add(
        "info_killing_floor",
        &build(|o| ue2::encode_info(ue2::UT2004, &kf, o)),
    );
    c.add(
        "rules",
        &build(|o| ue2::encode_rules(0x79, &[("ServerMode".into(), "dedicated".into())], o)),
    );
    let players = [
        ue2::Player {
            id: 1,
            name: "Malcolm".into(),
            ping: 20,
            score: 25,
            stats_id: 0,
        },
        ue2::Player {
            id: 2,
            name: "Лена".into(),
            ping: 30,
            score: 9,
            stats_id: 0,
        },
    ];
    let player_bytes = build(|o| ue2::encode_players(ue2::UT2004, &players, o));
    c.add("players", &player_bytes);
}

/// id Tech 4: the simulator's reply in each layout, with the layout byte and the challenge
/// the fuzz target reads first.
fn doom3(root: &Path) {
    use gameserver_exporter::simulate::doom3::{reply, Doom3Config};
    let c = Corpus::new(root, "doom3");
    let w = WorldState {
        name: "^1Seed ^7Server".into(),
        map: "game/mp/d3dm1".into(),
        bots: 1,
        players: vec![("Marine".into(), 0, 0.0)],
        ..WorldState::default()
    };
    let challenge = 0x1234_5678u32;
    for (i, (name, dialect)) in [
        ("doom3", Dialect::Doom3),
        ("quake4", Dialect::Quake4),
        ("etqw", Dialect::Etqw),
        ("wolfenstein", Dialect::Wolfenstein),
    ]
    .into_iter()
    .enumerate()
    {
        let config = Doom3Config {
            dialect,
            ..Doom3Config::default()
        };
        let mut bytes = vec![i as u8];
        bytes.extend_from_slice(&challenge.to_le_bytes());
        d3::encode_reply(&reply(&w, &config, challenge), dialect, &mut bytes);
        c.add(&format!("reply_{name}"), &bytes);
    }
    let mut req = vec![0u8, 0, 0, 0, 0];
    d3::encode_request(challenge, &mut req);
    c.add("request", &req);
}

/// What the simulated TShock and Palworld APIs answer, in the link's message form, and the
/// bodies alone for the JSON decoders.
fn http_apis(root: &Path) {
    use gameserver_exporter::protocol::http;
    let json = |body: &[u8]| {
        let mut out = Vec::new();
        let h: [(&str, &[u8]); 1] = [("content-type", b"application/json; charset=utf-8")];
        http::encode_response(200, h, body, &mut out);
        out
    };
    let tshock = br#"{"status":"200","name":"Sim","serverversion":"v1.4.4.9","tshockversion":"5.2.0.0","port":7777,"playercount":1,"maxplayers":8,"world":"Forest","uptime":"0.01:02:03","serverpassword":false,"players":[{"nickname":"Alice","username":"","group":"default","active":true,"state":10,"team":0}]}"#;
    let refused = br#"{"status":"401","error":"Not authorized. The specified API endpoint requires a token."}"#;
    let info = br#"{"version":"v0.3.11.0","servername":"Pal","description":"d","worldguid":"0"}"#;
    let metrics = br#"{"serverfps":58,"currentplayernum":2,"serverframetime":17.25,"maxplayernum":32,"uptime":3600,"days":12}"#;
    let players = br#"{"players":[{"name":"Zoe","accountName":"zoe","playerId":"1","userId":"steam_1","ip":"127.0.0.1","ping":30.0,"location_x":0.0,"location_y":0.0,"level":12,"building_count":0}]}"#;
    let mut feed = String::new();
    let fs = farmingsimulator::Feed {
        game: Some("Farming Simulator 22".into()),
        version: Some("1.14.0.0".into()),
        name: "Sim & farm".into(),
        map: Some("Elmcreek".into()),
        map_size: Some(2048),
        day_time: Some(43_215_000),
        capacity: 4,
        used: 1,
        players: vec![farmingsimulator::FsPlayer {
            name: "Alice".into(),
            admin: true,
            uptime_minutes: Some(12),
        }],
        mods: 1,
    };
    farmingsimulator::encode_feed(&fs, &mut feed);
    let c = Corpus::new(root, "farmingsimulator_feed");
    c.add("feed", feed.as_bytes());
    c.add("empty-slots", b"<Server name=\"a\"><Slots capacity=\"2\" numUsed=\"0\"><Player isUsed=\"false\"/></Slots></Server>");
    json_pages(root);
    let c = Corpus::new(root, "terraria_status");
    c.add("status", tshock);
    c.add("refused", refused);
    let c = Corpus::new(root, "palworld_json");
    c.add("info", info);
    c.add("metrics", metrics);
    c.add("players", players);
    let sat_state = br#"{"data":{"serverGameState":{"activeSessionName":"Sim","numConnectedPlayers":2,"playerLimit":4,"techTier":3,"activeSchematic":"None","gamePhase":"/Script/FactoryGame.FGGamePhase'/Game/FactoryGame/GamePhases/GP_Project_Assembly_Phase_2.GP_Project_Assembly_Phase_2'","isGameRunning":true,"totalGameDuration":5400,"isGamePaused":false,"averageTickRate":29.5,"autoLoadSessionName":"Sim"}}}"#;
    let sat_refused = br#"{"errorCode":"invalid_token","errorMessage":"The provided authentication token is invalid","errorData":{}}"#;
    let c = Corpus::new(root, "satisfactory_api");
    c.add("state", sat_state);
    c.add("refused", sat_refused);
    let fivem_players = br#"[{"endpoint":"127.0.0.1","id":1,"identifiers":[],"name":"Franklin","ping":40},{"id":2,"identifiers":["license:ab"],"name":"Trevor","ping":12}]"#;
    let c = Corpus::new(root, "fivem_players");
    c.add("listed", fivem_players);
    c.add("hidden", b"[]");
    let c = Corpus::new(root, "http_message");
    c.add("tshock", &json(tshock));
    c.add("palworld_metrics", &json(metrics));
    c.add(
        "unauthorized",
        b"HTTP/1.1 401\r\nwww-authenticate: Basic\r\n\r\n",
    );
    let mut req = Vec::new();
    http::encode_request(
        "GET",
        "/v1/api/info",
        &[("Authorization", "Basic YWRtaW46eA==")],
        b"",
        &mut req,
    );
    c.add("request", &req);
}

/// FiveM: the request, a reply in FXServer's layout (echoing "fuzz", the challenge the
/// fuzz targets use), and one cut short.
fn fivem(root: &Path) {
    let c = Corpus::new(root, "fivem");
    c.add("request", &build(|o| fivem::encode_request("fuzz", o)));
    let vars: Vec<(String, String)> = [
        ("sv_maxclients", "48"),
        ("clients", "7"),
        ("challenge", "fuzz"),
        ("gamename", "CitizenFX"),
        ("protocol", "4"),
        ("hostname", "^1Los ^7Santos"),
        ("gametype", "Freeroam"),
        ("mapname", "fivem-map-skater"),
        ("iv", "-1398345911"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let reply = build(|o| fivem::encode_reply(&vars, o));
    c.add("reply_fxserver", &reply);
    c.add("reply_cut", &reply[..reply.len() / 2]);
}

/// Satisfactory: the request and a reply (cookie 0x0101..., as the exchange fuzzer uses).
fn satisfactory(root: &Path) {
    let c = Corpus::new(root, "satisfactory");
    c.add(
        "request",
        &build(|o| satisfactory::encode_request(0x0101_0101_0101_0101, o)),
    );
    let reply = satisfactory::Reply {
        cookie: 0x0101_0101_0101_0101,
        state: ServerState::Playing,
        net_cl: 385_883,
        flags: 1,
        substates: vec![
            SubState { id: 0, version: 7 },
            SubState { id: 3, version: 2 },
        ],
        name: "Ficsit Factory".into(),
    };
    c.add(
        "reply_playing",
        &build(|o| satisfactory::encode_reply(&reply, o)),
    );
}

/// TeamSpeak 3: a whole session's server side (banner, `use`, `serverinfo`, `clientlist`).
fn teamspeak3(root: &Path) {
    let c = Corpus::new(root, "teamspeak3");
    let rec = |pairs: &[(&str, &str)]| -> ts3::Record {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let mut out = b"TS3\n\rWelcome to the TeamSpeak 3 ServerQuery interface.\n\r".to_vec();
    ts3::encode_error_line(0, "ok", &mut out);
    let info = rec(&[
        ("virtualserver_name", "Team Room | EU/West"),
        ("virtualserver_clientsonline", "5"),
        ("virtualserver_queryclientsonline", "1"),
        ("virtualserver_maxclients", "32"),
    ]);
    ts3::encode_records(&[info], &mut out);
    ts3::encode_error_line(0, "ok", &mut out);
    let a = rec(&[
        ("clid", "1"),
        ("client_nickname", "serveradmin"),
        ("client_type", "1"),
    ]);
    let b = rec(&[
        ("clid", "2"),
        ("client_nickname", "Alice A"),
        ("client_type", "0"),
    ]);
    ts3::encode_records(&[a, b], &mut out);
    ts3::encode_error_line(0, "ok", &mut out);
    c.add("session", &out);
    let mut ban = Vec::new();
    ts3::encode_error_line(3329, "connection failed, you are banned", &mut ban);
    c.add("ban", &ban);
}

/// Frostbite: a BF4 `serverInfo`, `version` and `listPlayers all` as the simulator answers
/// them, back to back, and a Bad Company 2 `serverInfo`.
fn battlefield(root: &Path) {
    use gameserver_exporter::protocol::battlefield::{encode, RESPONSE};
    use gameserver_exporter::simulate::battlefield::{answer, Flavour};
    use gameserver_exporter::simulate::WorldState;
    let c = Corpus::new(root, "battlefield");
    let world = WorldState {
        players: vec![("alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
        ..WorldState::default()
    };
    for (name, flavour) in [("bf4", Flavour::Bf4), ("bc2", Flavour::Bc2)] {
        let mut out = Vec::new();
        for (n, ask) in [&["serverInfo"][..], &["version"], &["listPlayers", "all"]]
            .iter()
            .enumerate()
        {
            let ask: Vec<String> = ask.iter().map(|s| s.to_string()).collect();
            let words = answer(&world, flavour, &ask);
            let refs: Vec<&str> = words.iter().map(String::as_str).collect();
            encode(RESPONSE | (n as u32 + 1), &refs, &mut out);
        }
        c.add(name, &out);
    }
}

/// OpenTTD: the simulator's game info in versions 7, 6 (OpenTTD 13's layout) and 4, framed,
/// and a `SERVER_FULL`.
fn openttd(root: &Path) {
    use gameserver_exporter::protocol::openttd::{
        encode_game_info, encode_packet, SERVER_FULL, SERVER_GAME_INFO,
    };
    use gameserver_exporter::simulate::openttd::game_info;
    use gameserver_exporter::simulate::WorldState;
    let c = Corpus::new(root, "openttd");
    let world = WorldState {
        players: vec![("alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
        ..WorldState::default()
    };
    for version in [7u8, 6, 4] {
        let mut body = Vec::new();
        encode_game_info(&game_info(&world, version), &mut body);
        let mut out = Vec::new();
        encode_packet(SERVER_GAME_INFO, &body, &mut out);
        c.add(&format!("v{version}"), &out);
    }
    let mut full = Vec::new();
    encode_packet(SERVER_FULL, &[], &mut full);
    c.add("full", &full);
}

/// Armagetron Advanced: the simulator's `big_server` with players (colour codes, a Latin-1
/// name) and a `small_server`.
fn armagetron(root: &Path) {
    use gameserver_exporter::protocol::armagetron::{
        encode_big_info, encode_packet, BIG_SERVER, SMALL_SERVER,
    };
    use gameserver_exporter::simulate::armagetron::big_info;
    use gameserver_exporter::simulate::WorldState;
    let c = Corpus::new(root, "armagetron");
    let world = WorldState {
        name: "0xff0000Caf\u{e9} Tron".into(),
        players: vec![("0x00ff00alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
        ..WorldState::default()
    };
    let mut data = Vec::new();
    encode_big_info(&big_info(&world, 4534), &mut data);
    let mut out = Vec::new();
    encode_packet(BIG_SERVER, &data, &mut out);
    c.add("big", &out);
    let mut small = Vec::new();
    encode_packet(SMALL_SERVER, &[0x11, 0xb6, 0, 0, 0, 0, 0, 0, 0, 0], &mut small);
    c.add("small", &small);
}

/// Source RCON: a login answer, Factorio's and vanilla Minecraft's replies, Paper's.
fn rcon(root: &Path) {
    use gameserver_exporter::protocol::rcon::{encode, TYPE_AUTH_RESPONSE, TYPE_RESPONSE};
    let c = Corpus::new(root, "rcon");
    let mut out = Vec::new();
    encode(7, TYPE_AUTH_RESPONSE, b"", &mut out);
    encode(
        8,
        TYPE_RESPONSE,
        b"Online players (2):\n  alice (online)\n  bob (online)",
        &mut out,
    );
    c.add("factorio", &out);
    let mut ark = Vec::new();
    encode(7, TYPE_AUTH_RESPONSE, b"", &mut ark);
    encode(
        8,
        TYPE_RESPONSE,
        b"\n0. Alice, 0002a1b2c3d4e5f60718293a4b5c6d7e\n1. Bob, 00020f1e2d3c4b5a69788796a5b4c3d2\n \n",
        &mut ark,
    );
    c.add("arkrcon", &ark);
    let mut cs2 = Vec::new();
    encode(8, TYPE_RESPONSE, b"players  : 1 humans, 1 bots (10 max)\nloaded spawngroup(  1)  : SV:  [1: de_train | main lump | mapload]\n---------players--------\n  id time ping loss state rate adr name\n    2 04:10 18 0 active 196608 192.0.2.5:27005 'Neo'\n#end\n", &mut cs2);
    c.add("cs2-status", &cs2);
    let mut consoles = Vec::new();
    encode(8, TYPE_RESPONSE, b"Players connected (1): \n-alice\n", &mut consoles);
    encode(10, TYPE_RESPONSE, b"Idx | Char name | Player name | User ID | Platform ID | Platform Name\n  0 | Zed | Zed#1 | A-1 | 7656 | STEAM\n", &mut consoles);
    c.add("zomboid-conan", &consoles);
    let mut mc = Vec::new();
    encode(8, TYPE_RESPONSE, b"The game is running normallyTarget tick rate: 20.0 per second.\nAverage time per tick: 2.5ms (Target: 50.0ms)Percentiles: P50: 2.1ms P95: 3.4ms P99: 5.0ms, sample: 100", &mut mc);
    c.add("tick-query", &mc);
    let mut paper = Vec::new();
    encode(
        8,
        TYPE_RESPONSE,
        "\u{a7}6TPS from last 1m, 5m, 15m: \u{a7}a*20.0, \u{a7}a19.97, \u{a7}a19.99".as_bytes(),
        &mut paper,
    );
    c.add("paper-tps", &paper);
    let mut refused = Vec::new();
    encode(-1, TYPE_AUTH_RESPONSE, b"", &mut refused);
    c.add("refused", &refused);
}

/// The single-game JSON pages as their simulators write them.
fn json_pages(root: &Path) {
    use gameserver_exporter::simulate::{
        assettocorsa, buildandshoot, eco, eldewrito, hytale, kspdmp, WorldState,
    };
    let w = WorldState {
        name: "Seed".into(),
        map: "seed-map".into(),
        max: 8,
        players: vec![("Alice".into(), 1, 2.0)],
        ..WorldState::default()
    };
    let c = Corpus::new(root, "json_pages");
    c.add("ac_info", assettocorsa::info_body(&w, false).to_string().as_bytes());
    c.add("ac_cars", assettocorsa::cars_body(&w).to_string().as_bytes());
    c.add("eco_frontpage", eco::frontpage_body(&w).to_string().as_bytes());
    c.add("bas_json", buildandshoot::page_body(&w, false).to_string().as_bytes());
    c.add("bas_teams", buildandshoot::page_body(&w, true).to_string().as_bytes());
    c.add("eldewrito_info", eldewrito::info_body(&w).to_string().as_bytes());
    c.add("kspdmp_status", kspdmp::status_body(&w).to_string().as_bytes());
    use hytale::Sections;
    c.add("hytale_query", hytale::page_body(&w, Sections::All).to_string().as_bytes());
    let first = hytale::page_body(&w, Sections::FirstRelease);
    c.add("hytale_first_release", first.to_string().as_bytes());
}
