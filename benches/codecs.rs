//! Decoder microbenchmarks: ns per decode of realistic replies, with a tiny hand-written
//! harness (black_box + Instant) so the dependency tree stays lean.
//!
//! ```text
//! cargo bench --bench codecs            # all
//! cargo bench --bench codecs -- a2s     # names containing "a2s"
//! ```

use std::hint::black_box;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use std::sync::Arc;
use std::time::SystemTime;

use gameserver_exporter::config;
use gameserver_exporter::metrics::{self, encode::Format, Globals};
use gameserver_exporter::protocol::a2s::{self, split};
use gameserver_exporter::protocol::minecraft::{legacy, query, slp, varint};
use gameserver_exporter::protocol::samp;
use gameserver_exporter::state::{State, TargetMeta};
use gameserver_exporter::status::Status;

/// Runs `f` for about `budget` after a short warm-up and prints ns per call.
fn bench(filter: &[String], name: &str, mut f: impl FnMut()) {
    if !filter.is_empty() && !filter.iter().any(|p| name.contains(p.as_str())) {
        return;
    }
    let budget = Duration::from_millis(300);
    let warm = Instant::now();
    while warm.elapsed() < Duration::from_millis(30) {
        f();
    }
    // Grow the batch until one batch takes ~10 ms, so Instant::now is not what we measure.
    let mut batch = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        if t.elapsed() >= Duration::from_millis(10) {
            break;
        }
        batch *= 2;
    }
    let (mut calls, start) = (0u64, Instant::now());
    while start.elapsed() < budget {
        for _ in 0..batch {
            f();
        }
        calls += batch;
    }
    let ns = start.elapsed().as_nanos() as f64 / calls as f64;
    println!("{name:<32} {ns:>12.1} ns/op");
}

fn source_info() -> Vec<u8> {
    let info = a2s::Info {
        name: "A friendly Counter-Strike 2 server | 128 tick | EU".into(),
        map: "de_dust2".into(),
        folder: "csgo".into(),
        game: "Counter-Strike 2".into(),
        app_id: 730,
        players: 17,
        max_players: 32,
        bots: Some(2),
        vac: Some(true),
        version: "1.40.2.1".into(),
        game_port: Some(27015),
        steam_id: Some(90_000_000_000_000_001),
        keywords: Some("secure,competitive,eu".into()),
        game_id: Some(730),
        ..a2s::Info::default()
    };
    let mut out = Vec::new();
    a2s::encode_info(&info, &mut out);
    out
}

/// A rules reply big enough to need splitting (~6 KB).
fn big_rules() -> Vec<u8> {
    let rules: Vec<(String, String)> = (0..200)
        .map(|i| (format!("sv_rule_number_{i}"), format!("value {i}")))
        .collect();
    let mut out = Vec::new();
    a2s::encode_rules(&rules, &mut out);
    out
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();

    let info = source_info();
    bench(&filter, "a2s_info", || {
        black_box(a2s::decode_info(black_box(&info)).ok());
    });
    bench(&filter, "a2s_reply_info_via_reassembler", || {
        let mut r = split::Reassembler::new(split::Limits {
            max_packets: 32,
            max_bytes: 1 << 20,
        });
        if let Ok(Some(msg)) = r.handle_datagram(black_box(&info)) {
            black_box(a2s::decode_reply(&msg).ok());
        }
    });

    let rules = big_rules();
    let limits = split::Limits {
        max_packets: 32,
        max_bytes: 1 << 20,
    };
    for (name, compress) in [("a2s_split_reassembly", false), ("a2s_split_bzip2", true)] {
        let fragments = split::encode_split(
            &rules,
            7,
            split::SplitOptions {
                format: split::Format::Source {
                    size_field: !compress,
                },
                fragment_size: 1248,
                compress,
            },
        );
        bench(&filter, name, || {
            let mut r = split::Reassembler::new(limits);
            for f in &fragments {
                if let Ok(Some(msg)) = r.handle_datagram(black_box(f)) {
                    black_box(a2s::decode_rules(&msg).ok());
                }
            }
        });
    }

    let header = samp::Header {
        ip: Ipv4Addr::LOCALHOST,
        port: 7777,
    };
    let mut samp_i = Vec::new();
    samp::encode_info(
        &header,
        &samp::Info {
            password: false,
            players: 57,
            max: 100,
            hostname: "Los Santos Roleplay | Español | Ñ".into(),
            gamemode: "LS-RP v3.1".into(),
            language: "Español".into(),
        },
        encoding_rs::WINDOWS_1252,
        &mut samp_i,
    );
    bench(&filter, "samp_i", || {
        black_box(samp::decode_info(black_box(&samp_i), &header, encoding_rs::WINDOWS_1252).ok());
    });

    let json = r#"{"version":{"name":"Paper 1.21.1","protocol":767},"players":{"max":500,"online":123,"sample":[{"name":"Notch","id":"069a79f4-44e9-4726-a5be-fca90e38aaf5"},{"name":"jeb_","id":"853c80ef-3c37-49fd-aa49-938b674adae6"}]},"description":{"text":"","extra":[{"text":"A ","color":"gold"},{"text":"Minecraft","bold":true},{"text":" server"}]},"enforcesSecureChat":true}"#;
    let mut frame_bytes = Vec::new();
    slp::encode_status_response(json, &mut frame_bytes);
    bench(&filter, "mc_status_json", || {
        if let Ok(Some((frame, _))) = varint::decode_frame(black_box(&frame_bytes), 1 << 20) {
            black_box(slp::decode_status_response(&frame).ok());
        }
    });

    let mut kick = Vec::new();
    legacy::encode_kick(
        &legacy::encode_kick_text(&legacy::LegacyStatus {
            protocol: Some(127),
            version: Some("1.6.4".into()),
            motd: "§aA legacy server".into(),
            online: 12,
            max: 40,
        }),
        &mut kick,
    );
    bench(&filter, "mc_legacy_kick", || {
        black_box(legacy::decode_kick(black_box(&kick)).ok());
    });

    let stat = query::FullStat {
        values: [
            ("hostname", "A Minecraft Server"),
            ("gametype", "SMP"),
            ("game_id", "MINECRAFT"),
            ("version", "1.21.1"),
            (
                "plugins",
                "Paper on 1.21.1: EssentialsX 2.20; LuckPerms 5.4",
            ),
            ("map", "world"),
            ("numplayers", "20"),
            ("maxplayers", "100"),
            ("hostport", "25565"),
            ("hostip", "127.0.0.1"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
        players: (0..20).map(|i| format!("player_{i}")).collect(),
    };
    let mut full = Vec::new();
    query::encode_full_stat_reply(1, &stat, &query::VANILLA_PADDING, &mut full);
    bench(&filter, "mcquery_full_stat", || {
        black_box(query::decode_full_stat(black_box(&full), 1).ok());
    });

    if filter.is_empty()
        || filter
            .iter()
            .any(|p| "metrics_render_10000".contains(p.as_str()))
    {
        let state = state_of(10_000);
        let globals = Globals {
            reload: state.reload_info(),
            process: None,
            shard: Default::default(),
        };
        bench(&filter, "metrics_render_10000", || {
            let entries = state.snapshot();
            black_box(metrics::render(Format::Text, &entries, &globals));
        });
    }

    // What gzip costs on top of that render, per level: the page is rendered once, then
    // compressed as the HTTP wrapper does (flate2, miniz_oxide). Sizes are printed once.
    if filter.is_empty() || filter.iter().any(|p| "gzip_10000".contains(p.as_str())) {
        let state = state_of(10_000);
        let globals = Globals {
            reload: state.reload_info(),
            process: None,
            shard: Default::default(),
        };
        let page = metrics::render(Format::Text, &state.snapshot(), &globals);
        println!("gzip_10000: plain {} bytes", page.len());
        for level in [1u32, 3, 6, 9] {
            let z = gzip_at(page.as_bytes(), level);
            println!(
                "gzip_10000: level {level}: {} bytes ({:.1} % of plain)",
                z.len(),
                z.len() as f64 * 100.0 / page.len() as f64
            );
            bench(&filter, &format!("gzip_10000_level_{level}"), || {
                black_box(gzip_at(black_box(page.as_bytes()), level));
            });
        }
    }
}

fn gzip_at(body: &[u8], level: u32) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    enc.write_all(body).expect("write to a Vec");
    enc.finish().expect("finish into a Vec")
}

/// A state of `n` A2S targets, each with one successful poll recorded.
fn state_of(n: usize) -> State {
    let mut text = String::from("[exporter]\ninterval = \"15s\"\n");
    for i in 0..n {
        text.push_str(&format!(
            "[[target]]\nname = \"server-{i}\"\nprotocol = \"a2s\"\naddress = \"10.0.{}.{}:27015\"\n",
            i / 250,
            i % 250 + 1
        ));
    }
    let cfg = config::parse("bench.toml", &text).expect("generated config parses");
    let state = State::default();
    let status = Status {
        online: 17,
        max: 32,
        bots: Some(2),
        name: "A friendly Counter-Strike 2 server".into(),
        map: Some("de_dust2".into()),
        game: Some("Counter-Strike 2".into()),
        version: Some("1.40.2.1".into()),
        password: Some(false),
        latency: Duration::from_micros(850),
        ..Status::default()
    };
    for t in cfg.targets {
        let meta = Arc::new(TargetMeta::new(t));
        state.insert(meta.clone());
        state.record(
            &meta,
            Ok(status.clone()),
            Duration::from_millis(1),
            SystemTime::now(),
        );
    }
    state
}
