//! The binary's command line: check-config and query, run as a child process.

use std::process::{Command, Output};

use crate::support::http;

use gameserver_exporter::simulate::{self, World, WorldState};
use gameserver_exporter::target::Protocol;

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp(name: &str, content: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("gse-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, content).unwrap();
    p
}

/// The shipped example configuration is valid, every `[[target]]` table of it counted.
#[test]
fn example_config_passes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/exporter.example.toml");
    let tables = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.trim() == "[[target]]")
        .count();
    assert!(tables >= 9, "{tables}");
    let out = exe().args(["check-config", path]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout),
        format!("{path}: OK ({tables} targets)\n")
    );
}

/// A bad file prints its error (file, line, key) and exits 1.
#[test]
fn bad_config_fails() {
    let p = temp(
        "bad.toml",
        "[exporter]\ninterval = \"15s\"\ntimeout = \"20s\"\n",
    );
    let out = exe().arg("check-config").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let name = p.file_name().unwrap().to_string_lossy();
    assert_eq!(
        text(&out.stdout),
        format!("{name}:3: exporter.timeout: 20s must be shorter than interval 15s\n")
    );
    let _ = std::fs::remove_file(p);
}

fn closed_udp_port() -> u16 {
    // Bind, note the port, release it: nothing listens there afterwards.
    let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    s.local_addr().unwrap().port()
}

/// Querying a closed port exits 1 with a one-line reason on stderr.
#[test]
fn query_closed_port() {
    let port = closed_udp_port();
    let out: Output = exe()
        .args([
            "query",
            "samp",
            &format!("127.0.0.1:{port}"),
            "--timeout",
            "500ms",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: refused: ") || err.starts_with("error: timeout: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

/// `query --help` names every protocol id.
#[test]
fn query_help_lists_every_protocol() {
    let out = exe().args(["query", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = text(&out.stdout);
    for p in Protocol::ALL {
        assert!(help.contains(p.as_str()), "{p} missing from:\n{help}");
    }
}

/// A reader that stops early (`games | head -1`) ends the command quietly: no panic on the
/// broken pipe, exit status 0, nothing on stderr.
#[test]
fn output_into_a_closed_pipe() {
    use std::process::Stdio;
    let mut child = exe()
        .arg("games")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        text(&out.stderr)
    );
    assert_eq!(text(&out.stderr), "");
}

/// Unknown protocol and encoding names are clear errors.
#[test]
fn query_bad_names() {
    let out = exe().args(["query", "doom", "127.0.0.1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: unknown protocol \"doom\" (one of: {}; or a game id from `gameserver-exporter games`, as game:ID where a protocol has the same id)\n",
            Protocol::names()
        )
    );
    let out = exe()
        .args(["query", "samp", "127.0.0.1", "--encoding", "klingon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "error: unknown encoding \"klingon\"\n");
}

/// `--proxy-protocol` takes v1 or v2, and only for a TCP protocol (refused before any
/// traffic).
#[test]
fn query_bad_proxy_protocol() {
    let out = exe()
        .args(["query", "samp", "127.0.0.1", "--proxy-protocol", "v2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        // The list comes from the specs: a new TCP protocol changes it without an edit here.
        format!(
            "error: --proxy-protocol: only TCP protocols ({}) can send a PROXY header; samp \
             runs over UDP\n",
            gameserver_exporter::target::Protocol::tcp_names()
        )
    );
    let out = exe()
        .args(["query", "minecraft", "127.0.0.1", "--proxy-protocol", "v3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("\"v3\" is not a version (want v1 or v2)"),
        "{}",
        text(&out.stderr)
    );
}

/// `--voice-port` only for a protocol that selects a virtual server by it, as a target's
/// `voice_port` (refused before any traffic).
#[test]
fn query_voice_port_on_voice_protocols_only() {
    let out = exe()
        .args(["query", "a2s", "127.0.0.1", "--voice-port", "9987"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: --voice-port: only teamspeak3 and teamspeak2 targets select a virtual server \
         by voice port; this one is a2s\n"
    );
}

fn world() -> WorldState {
    WorldState {
        name: "CLI Test".into(),
        max: 10,
        players: vec![("alice".into(), 5, 10.0)],
        ..WorldState::default()
    }
}

/// Protocols whose reply carries no server name (Mumble's ping: counts only).
/// Factorio's RCON: the count and names only.
const NAMELESS: &[Protocol] = &[
    Protocol::Mumble,
    Protocol::Factorio,
    Protocol::Arkrcon,
    Protocol::Soldat,
    // bzfs's query carries no server name (the title goes only to the list server).
    Protocol::Bzflag,
];
/// Protocols with counts but no player list (Mumble's ping, RakNet's unconnected pong).
/// (FiveM's list comes from HTTP `/players.json` with `--players`, best effort.)
const NO_PLAYER_LIST: &[Protocol] = &[
    Protocol::Mumble,
    Protocol::MinecraftBedrock,
    Protocol::Satisfactory,
    // OpenTTD 12+ sends no client names.
    Protocol::Openttd,
    // rFactor's query carries counts only.
    Protocol::Rfactor,
    // Frontlines: its player reply is read two ways by two readers; we ask only for info.
    Protocol::Ffow,
    // Savage 2's reply carries counts only.
    Protocol::Savage2,
    // StarMade's status query carries counts only.
    Protocol::Starmade,
];

/// Protocols whose reply carries no counts (Satisfactory's Lightweight Query).
const NO_COUNTS: &[Protocol] = &[Protocol::Satisfactory];
/// Protocols reporting who is online but no capacity (Factorio's `/players online count`).
const NO_MAX: &[Protocol] = &[
    Protocol::Factorio,
    Protocol::Arkrcon,
    Protocol::Eco,
    Protocol::Soldat,
];

/// `query --json` against every protocol's simulator prints every Status field.
#[test]
fn query_simulators_json() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let servers = rt.block_on(async {
        let mut servers = Vec::new();
        for p in Protocol::ALL {
            let server = (simulate::simulator(p).spawn)(World::new(world()))
                .await
                .unwrap();
            servers.push((p, server));
        }
        servers
    });
    // Servers that answer only after a login: the password their simulator expects, in a
    // file as `--password-file` reads it.
    let dir = std::env::temp_dir().join(format!("gse-cli-pw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (protocol, server) in &servers {
        let mut login = Vec::new();
        if let Some(pw) = simulate::simulator(*protocol).password {
            let file = dir.join(protocol.as_str());
            std::fs::write(&file, pw).unwrap();
            login = vec!["--password-file".to_string(), file.display().to_string()];
        }
        let out = exe()
            .args([
                "query",
                protocol.as_str(),
                &server.addr.to_string(),
                "--json",
                "--players",
            ])
            .args(&login)
            .output()
            .unwrap();
        assert!(out.status.success(), "{protocol}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if !NO_COUNTS.contains(protocol) {
            let max = if NO_MAX.contains(protocol) { 0 } else { 10 };
            assert_eq!(v["max"], max, "{protocol}");
            assert_eq!(v["online"], 1, "{protocol}");
        }
        let named = !NAMELESS.contains(protocol);
        if named {
            assert_eq!(v["name"], "CLI Test", "{protocol}");
        }
        if !NO_PLAYER_LIST.contains(protocol) {
            assert_eq!(v["players"][0]["name"], "alice", "{protocol}");
        }
        for key in [
            "online", "max", "bots", "name", "map", "game", "version", "password", "latency",
            "players", "rules", "extras",
        ] {
            assert!(v.get(key).is_some(), "{protocol}: {key} missing");
        }
        // The readable summary names the server and the player count.
        let out = exe()
            .args(["query", protocol.as_str(), &server.addr.to_string()])
            .args(&login)
            .output()
            .unwrap();
        let s = text(&out.stdout);
        assert!(!named || s.contains("name:     CLI Test\n"), "{s}");
        assert!(s.contains("latency:  "), "{s}");
    }
    drop(servers);
    let _ = std::fs::remove_dir_all(&dir);
}

fn free_tcp_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The whole reply, head and body, or None while nothing answers.
fn http_get(port: u16, path: &str) -> Option<String> {
    let r = http::blocking(([127, 0, 0, 1], port).into(), "GET", path, "")?;
    Some(format!(
        "{}\r\n\r\n{}",
        r.head,
        String::from_utf8_lossy(&r.body)
    ))
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// The daemon binary serves, reloads on SIGHUP and exits 0 on SIGTERM.
#[cfg(unix)]
#[test]
fn daemon_signals() {
    use std::time::{Duration, Instant};
    let port = free_tcp_port();
    let t = "[[target]]\nname = \"one\"\nprotocol = \"samp\"\naddress = \"127.0.0.1:1\"\n";
    let p = temp("daemon.toml", t);
    let mut child = exe()
        .arg("--config")
        .arg(&p)
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--log-format",
            "json",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + crate::support::daemon::DEADLINE;
    let body = loop {
        if let Some(b) = http_get(port, "/metrics") {
            break b;
        }
        assert!(Instant::now() < deadline, "daemon did not come up");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(body.contains("gameserver_targets{protocol=\"samp\"} 1"));
    std::fs::write(&p, format!("{t}{}", t.replace("one", "two"))).unwrap();
    signal(child.id(), "-HUP");
    loop {
        let b = http_get(port, "/metrics").unwrap_or_default();
        if b.contains("gameserver_targets{protocol=\"samp\"} 2") {
            break;
        }
        assert!(Instant::now() < deadline, "SIGHUP did not reload:\n{b}");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(child.id(), "-TERM");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut logs = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut logs).unwrap();
    assert!(
        logs.contains("\"message\":\"configuration reloaded\""),
        "{logs}"
    );
    let _ = std::fs::remove_file(p);
}

/// --shard and GAMESERVER_EXPORTER_SHARD: a bad value stops the daemon with the source named;
/// the flag (in the systemd template's I-of-N spelling) wins over the environment.
#[cfg(unix)]
#[test]
fn daemon_shard_flag_and_env() {
    use std::time::{Duration, Instant};
    let one = "[[target]]\nname = \"one\"\nprotocol = \"samp\"\naddress = \"127.0.0.1:1\"\n";
    let t = format!(
        "[exporter]\nshard = \"1/2\"\n{one}{}",
        one.replace("one", "three")
    );
    let p = temp("shard.toml", &t);
    let run = |args: &[&str], env: Option<&str>| {
        let mut c = exe();
        c.arg("--config").arg(&p).args(["--listen", "127.0.0.1:0"]);
        c.args(args).env_remove("GAMESERVER_EXPORTER_SHARD");
        if let Some(e) = env {
            c.env("GAMESERVER_EXPORTER_SHARD", e);
        }
        c.output().unwrap()
    };
    let out = run(&["--shard", "3/3"], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: --shard: shard index 3 must be below the shard count 3\n"
    );
    let out = run(&[], Some("x"));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: GAMESERVER_EXPORTER_SHARD: invalid shard \"x\" (want I/N such as 0/3, or I-of-N such as 0-of-3)\n"
    );

    let port = free_tcp_port();
    let mut child = exe()
        .arg("--config")
        .arg(&p)
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--shard",
            "2-of-3",
        ])
        .env("GAMESERVER_EXPORTER_SHARD", "0/3")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + crate::support::daemon::DEADLINE;
    let body = loop {
        if let Some(b) = http_get(port, "/metrics") {
            break b;
        }
        assert!(Instant::now() < deadline, "daemon did not come up");
        std::thread::sleep(Duration::from_millis(50));
    };
    signal(child.id(), "-TERM");
    assert!(child.wait().unwrap().success());
    assert!(
        body.contains("\ngameserver_exporter_shard_info{shard=\"2\",shards=\"3\"} 1\n"),
        "{body}"
    );
    // hashmod("one", 3) is 2, hashmod("three", 3) is 0: only "one" is this replica's.
    assert!(
        body.contains("gameserver_targets{protocol=\"samp\"} 1"),
        "{body}"
    );
    let _ = std::fs::remove_file(p);
}

/// Satisfactory's HTTPS API from the command line, as a configured target polls it: the
/// token from `--api-token-file`, the simulator's self-signed certificate pinned with
/// `--tls-fingerprint`. Without the pin the certificate is verified, and refused.
#[test]
fn query_satisfactory_api_with_token_and_pin() {
    use gameserver_exporter::simulate::satisfactory as sat;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (tls, pin) = sat::demo_tls();
    let server = rt.block_on(async {
        let config = sat::SatisfactoryConfig {
            api: Some(sat::ApiConfig::new(sat::DEMO_TOKEN, tls)),
            ..Default::default()
        };
        sat::spawn(World::new(world()), config).await.unwrap()
    });
    let token = temp("sat.token", sat::DEMO_TOKEN);
    let hex: String = pin.iter().map(|b| format!("{b:02x}")).collect();
    let query = |extra: &[&str]| {
        exe()
            .args(["query", "satisfactory", &server.addr.to_string(), "--json"])
            .args(["--api-token-file", &token.display().to_string()])
            .args(extra)
            .output()
            .unwrap()
    };

    let out = query(&["--tls-fingerprint", &format!("sha256:{hex}")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["online"], 1, "{v}");
    assert_eq!(v["max"], 10, "{v}");
    assert!(v["health"]["tick_rate_hertz"].as_f64().is_some(), "{v}");
    assert!(!text(&out.stdout).contains(sat::DEMO_TOKEN));

    let out = query(&[]);
    assert!(!out.status.success());
    assert!(!text(&out.stderr).contains(sat::DEMO_TOKEN));

    // TLS settings belong to HTTP protocols only, and a pin is never combined with no checks.
    let out = exe()
        .args(["query", "a2s", "127.0.0.1:1", "--tls-insecure"])
        .output()
        .unwrap();
    assert!(
        text(&out.stderr).contains("only HTTP protocols"),
        "{}",
        text(&out.stderr)
    );
    let out = query(&[
        "--tls-insecure",
        "--tls-fingerprint",
        &format!("sha256:{hex}"),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
