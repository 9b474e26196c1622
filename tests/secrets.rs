//! A planted secret reaches no surface: a known password in the secret files of targets of
//! every protocol that takes credentials, then every place the exporter writes is searched
//! for it: `/metrics`, `/probe?target=...&debug=true`, `/api/v1/targets`, the status page,
//! `/health`, `check-config` output, config error messages and the daemon's log lines at
//! debug level. A helper adding a protocol that logs in adds its target to [`targets`].

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::minecraft::Console;
use gameserver_exporter::simulate::{self, World, WorldState};
use gameserver_exporter::target::Protocol;
// A binary of its own, not a module of tests/it: the test installs a global tracing
// subscriber at debug level to search every log line, which would capture (and slow) every
// other suite's daemons in a shared process. It borrows the shared helpers by path.
#[allow(dead_code)]
#[path = "it/support/daemon.rs"]
mod harness;
#[allow(dead_code)]
#[path = "it/support/http.rs"]
mod http;

/// The planted secret: distinctive, so any copy of it anywhere is found.
const SECRET: &str = "Pl4nted-S3cret-7c1e";

/// Every log line the daemon writes, at debug level.
fn log() -> &'static Mutex<Vec<u8>> {
    static LOG: OnceLock<Mutex<Vec<u8>>> = OnceLock::new();
    LOG.get_or_init(|| Mutex::new(Vec::new()))
}

struct Sink;

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        log().lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn write_secret(path: &Path) {
    std::fs::write(path, format!("{SECRET}\n")).unwrap();
    // Readable by others on purpose: the warning must name the file, not the secret.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

/// One configured target per protocol that takes credentials, each with the planted secret
/// in every file it names, aimed at that protocol's simulator at `addr`.
/// `rcon_port`: a console the Minecraft target's health query logs in to (and is refused
/// by: it has its own password), so the planted secret goes out in an RCON login.
fn targets(protocol: Protocol, addr: SocketAddr, pw: &Path, rcon_port: u16) -> Option<String> {
    let pw = pw.display();
    let (name, keys) = match protocol {
        Protocol::Minecraft => (
            "mc",
            format!("rcon = {{ port = {rcon_port}, password_file = \"{pw}\" }}"),
        ),
        // Source RCON health beside the A2S poll: the planted password goes out on the
        // console's login every poll.
        Protocol::A2s => (
            "srcds",
            format!("rcon = {{ port = {rcon_port}, password_file = \"{pw}\" }}"),
        ),
        Protocol::Terraria => ("tshock", format!("token_file = \"{pw}\"")),
        Protocol::Palworld => ("pal", format!("password_file = \"{pw}\"\nplayers = true")),
        Protocol::Teamspeak3 => (
            "ts3",
            format!("username = \"serveradmin\"\npassword_file = \"{pw}\""),
        ),
        Protocol::Satisfactory => (
            "sat",
            format!("api_token_file = \"{pw}\"\ntls_insecure = true"),
        ),
        // The RCON login goes out (and is refused: the simulator has its own password).
        Protocol::Factorio => (
            "factorio",
            format!("password_file = \"{pw}\"\nplayers = true"),
        ),
        // The stats feed's code goes out in the URL's query every poll.
        Protocol::Farmingsimulator => ("farm", format!("code_file = \"{pw}\"\nplayers = true")),
        // ARK: Survival Ascended's RCON login goes out (and is refused, as Factorio's).
        Protocol::Arkrcon => ("asa", format!("password_file = \"{pw}\"\nplayers = true")),
        // GBXRemote's Authenticate carries the password (the default simulator takes any).
        Protocol::Nadeo => (
            "tm2",
            format!("username = \"User\"\npassword_file = \"{pw}\"\nplayers = true"),
        ),
        _ => return None,
    };
    Some(format!(
        "[[target]]\nname = \"{name}\"\nprotocol = \"{protocol}\"\naddress = \"{addr}\"\n{keys}\n"
    ))
}

#[tokio::test]
async fn planted_secret_reaches_no_surface() {
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(|| Sink)
        .with_ansi(false)
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let dir = std::env::temp_dir().join(format!("gse-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pw = dir.join("planted.pw");
    write_secret(&pw);

    let mut servers = Vec::new();
    let console = simulate::minecraft::spawn_console(World::default(), Console::Vanilla)
        .await
        .unwrap();
    let rcon_port = console.addr.port();
    let mut text = String::from("[exporter]\ninterval = \"1s\"\ntimeout = \"500ms\"\n");
    let mut names = Vec::new();
    for p in Protocol::ALL {
        if p.credential_keys().is_empty() {
            continue;
        }
        let world = World::new(WorldState::default());
        let server = match p {
            // With its HTTPS API taking the planted token, so the Authorization header goes
            // out on every poll.
            Protocol::Satisfactory => {
                use gameserver_exporter::simulate::satisfactory as sat;
                let config = sat::SatisfactoryConfig {
                    api: Some(sat::ApiConfig::new(SECRET, sat::demo_tls().0)),
                    ..Default::default()
                };
                sat::spawn(world, config).await.unwrap()
            }
            _ => (simulate::simulator(p).spawn)(world).await.unwrap(),
        };
        let t = targets(p, server.addr, &pw, rcon_port)
            .unwrap_or_else(|| panic!("{p} takes credentials: add its target to targets()"));
        names.push(
            t.lines()
                .nth(1)
                .unwrap()
                .split('"')
                .nth(1)
                .unwrap()
                .to_string(),
        );
        text.push_str(&t);
        servers.push(server);
    }
    assert!(!names.is_empty());
    // Consoles in other dialects than Source RCON, chosen by the game (issue 31), each
    // logging the planted password in and echoing it back in every form: Rust's WebRCON
    // (the password is the WebSocket URL's path).
    let (rust, rust_console) = rust_echoing(SECRET).await;
    text.push_str(&format!(
        "[[target]]\nname = \"rust\"\ngame = \"rust\"\naddress = \"{}\"\n\
         rcon = {{ port = {}, password_file = \"{}\" }}\n",
        rust.addr,
        rust_console.addr.port(),
        pw.display()
    ));
    names.push("rust".into());
    servers.extend([rust, rust_console]);

    let d = harness::start(&text, Arc::new(QueryProber)).await;
    harness::wait_for(
        d.addr,
        &[
            "gameserver_queries_total{target=\"mc\",protocol=\"minecraft\"} ",
            // The echoing console answered: its health is published.
            "gameserver_entities{target=\"rust\",protocol=\"a2s\"} 184213",
        ],
    )
    .await;
    let mut surfaces: Vec<(String, String)> = Vec::new();
    let mut get = |what: String, body: String| surfaces.push((what, body));
    get("/metrics".into(), harness::metrics(d.addr).await);
    for path in ["/api/v1/targets", "/", "/status"] {
        let r = http::plain(d.addr, "GET", path, "").await.unwrap();
        get(path.into(), r.text().to_string());
    }
    for name in &names {
        for path in [
            format!("/probe?target={name}&debug=true"),
            format!("/probe?target={name}"),
            format!("/health?target={name}"),
        ] {
            let r = http::plain(d.addr, "GET", &path, "").await.unwrap();
            get(path, r.text().to_string());
        }
    }
    // A reload re-reads the files (and logs about them).
    let r = http::plain(d.addr, "POST", "/-/reload", "").await.unwrap();
    get("/-/reload".into(), r.text().to_string());
    d.stop().await;

    // check-config, on the good file and on broken ones naming the secret file.
    let cfg = dir.join("exporter.toml");
    std::fs::write(&cfg, &text).unwrap();
    let broken = [
        text.clone(),
        text.replace(&format!("port = {rcon_port},"), "port = 0,"),
        format!("{text}\n[[target]]\nname = \"x\"\nprotocol = \"a2s\"\naddress = \"127.0.0.1\"\npassword_file = \"{}\"\n", pw.display()),
    ];
    for (i, t) in broken.iter().enumerate() {
        std::fs::write(&cfg, t).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
            .arg("check-config")
            .arg(&cfg)
            .output()
            .unwrap();
        get(
            format!("check-config #{i} stdout"),
            String::from_utf8_lossy(&out.stdout).into(),
        );
        get(
            format!("check-config #{i} stderr"),
            String::from_utf8_lossy(&out.stderr).into(),
        );
        let loaded = gameserver_exporter::config::load(&cfg);
        get(format!("config::load #{i}"), format!("{loaded:?}"));
    }
    let logs = String::from_utf8_lossy(&log().lock().unwrap()).into_owned();
    assert!(
        logs.contains("readable by group or others"),
        "no warning in:\n{logs}"
    );
    get("daemon log".into(), logs);

    for (what, body) in &surfaces {
        for form in forms_of(SECRET) {
            assert!(
                !body.contains(&form),
                "the secret ({form}) is in {what}:\n{body}"
            );
        }
        if what.contains("debug=true") {
            let dumped = String::from_utf8_lossy(&dumped_bytes(body)).into_owned();
            for form in forms_of(SECRET) {
                assert!(
                    !dumped.contains(&form),
                    "{form} in {what}'s dump:\n{dumped}"
                );
            }
        }
    }
    // The WebSocket upgrade (the password in its path) went out redacted, and the console's
    // echo of it came back masked.
    let (_, rust) = surfaces
        .iter()
        .find(|(what, _)| what == "/probe?target=rust&debug=true")
        .unwrap();
    assert!(
        rust.contains("WebSocket upgrade") && rust.contains("redacted"),
        "{rust}"
    );
    let echoed = String::from_utf8_lossy(&dumped_bytes(rust)).into_owned();
    assert!(
        echoed.contains("connection from 127.0.0.1 on /****"),
        "{rust}"
    );
    // Satisfactory's token went out (to its HTTPS API), shown redacted.
    let (_, sat) = surfaces
        .iter()
        .find(|(what, _)| what == "/probe?target=sat&debug=true")
        .unwrap();
    assert!(sat.contains("sent POST /api/v1 QueryServerState"), "{sat}");
    assert!(sat.contains("<redacted"), "{sat}");
    // The Minecraft target's health query sent its RCON login, shown redacted.
    assert!(
        surfaces
            .iter()
            .any(|(w, b)| w == "/probe?target=mc&debug=true" && b.contains("redacted")),
        "no redacted RCON login in the mc transcript"
    );
    // The probe's transcript did run (not an empty page that trivially holds no secret).
    assert!(surfaces
        .iter()
        .any(|(w, b)| w.contains("debug=true") && b.contains("peer ")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Rust server (A2S) and its WebRCON console, which takes `password` and quotes it back
/// (raw, URL-encoded, base64, hex) in a broadcast before each reply.
async fn rust_echoing(password: &str) -> (simulate::SimServer, simulate::SimServer) {
    use gameserver_exporter::simulate::webrcon::{self, Misbehaviour, WebRconConfig};
    let game = simulate::a2s::spawn(World::default(), Default::default())
        .await
        .unwrap();
    let console = webrcon::spawn(
        World::default(),
        WebRconConfig {
            password: password.into(),
            misbehaviour: Misbehaviour::EchoPassword,
        },
    )
    .await
    .unwrap();
    (game, console)
}

/// A 7 Days to Die server (A2S) and its telnet console, which takes `password` and logs it
/// back (raw, URL-encoded, base64, hex) after the login.
async fn sdtd_echoing(password: &str) -> (simulate::SimServer, simulate::SimServer) {
    use gameserver_exporter::simulate::sdtd::{self, Misbehaviour, SdtdConfig};
    let game = simulate::a2s::spawn(World::default(), Default::default())
        .await
        .unwrap();
    let console = sdtd::spawn(
        World::default(),
        SdtdConfig {
            password: password.into(),
            misbehaviour: Misbehaviour::EchoPassword,
        },
    )
    .await
    .unwrap();
    (game, console)
}

/// A secret with characters that travel encoded (space, slash, plus, ampersand).
const ECHOED: &str = "Ech0 s3cret/+&=9f2a";

/// A TCP server that echoes what it was sent, as misbehaving servers do: `http`, a 404 page
/// whose body is the whole request (URL with its `token=`, every header); otherwise a
/// TeamSpeak banner, then `ok` to each command but the login, which is refused quoting the
/// login line, dripped one byte per write.
async fn echo_server(http: bool) -> SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    simulate::tcp::accept_loop(listener, move |mut sock, _| {
        let _ = sock.set_nodelay(true);
        async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            if !http {
                let _ = sock.write_all(simulate::teamspeak3::BANNER).await;
            }
            loop {
                let Ok(n) = sock.read(&mut buf).await else {
                    return;
                };
                if n == 0 {
                    return;
                }
                got.extend_from_slice(&buf[..n]);
                if http {
                    if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                        let request = &got[..end + 4];
                        let head = format!(
                            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\
                                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                            request.len()
                        );
                        let _ = sock.write_all(head.as_bytes()).await;
                        let _ = sock.write_all(request).await;
                        return;
                    }
                    continue;
                }
                while let Some(end) = got.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = got.drain(..=end).collect();
                    // Other commands succeed; the login is refused, quoting it.
                    let mut reply = if line.starts_with(b"login") {
                        let mut r =
                            b"error id=520 msg=invalid\\sloginname\\sor\\spassword extra_msg="
                                .to_vec();
                        r.extend_from_slice(line.trim_ascii_end());
                        r
                    } else {
                        b"error id=0 msg=ok".to_vec()
                    };
                    reply.extend_from_slice(b"\n\r");
                    for b in reply {
                        if sock.write_all(&[b]).await.is_err() {
                            return;
                        }
                    }
                }
            }
        }
    });
    addr
}

/// The bytes of every hexdump in a transcript, lines joined again: a secret split over two
/// dump lines (or two chunks) is found whole.
fn dumped_bytes(transcript: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in transcript.lines() {
        let Some((hex, _ascii)) = line.split_once("  |") else {
            continue;
        };
        let mut words = hex.split_whitespace();
        let is_offset = words
            .next()
            .is_some_and(|w| w.len() == 4 && w.bytes().all(|b| b.is_ascii_hexdigit()));
        if !is_offset {
            continue;
        }
        for w in words {
            if let Ok(b) = u8::from_str_radix(w, 16) {
                out.push(b);
            }
        }
    }
    out
}

/// Every form a secret may be echoed in: raw, URL-encoded, XML-escaped, base64 (alone and as
/// Basic `user:secret`) and hex.
fn forms_of(secret: &str) -> Vec<String> {
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let mut forms = simulate::hostile::Quoted::forms(secret);
    forms.push(b64(&format!("admin:{secret}")));
    forms.push(b64(&format!("serveradmin:{secret}")));
    // XML-escaped, as a GBXRemote fault quotes it.
    forms.push(
        secret
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;"),
    );
    forms
}

/// Servers that echo the credentials they were sent (issue 31): the transcript shows what
/// they replied, with the secret masked in every form, including across dump lines and
/// across a reply dripped one byte at a time.
#[tokio::test]
async fn echoed_secret_is_masked_in_transcripts() {
    let dir = std::env::temp_dir().join(format!("gse-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pw = dir.join("echoed.pw");
    std::fs::write(&pw, format!("{ECHOED}\n")).unwrap();
    let pw = pw.display();
    let http_echo = echo_server(true).await;
    let ts3_echo = echo_server(false).await;
    let (rust, rust_console) = rust_echoing(ECHOED).await;
    let (sdtd, sdtd_console) = sdtd_echoing(ECHOED).await;
    // A Trackmania server refusing the login with a fault quoting it (XML-escaped).
    let nadeo_echo = {
        use gameserver_exporter::simulate::nadeo::{self, Misbehaviour, NadeoConfig};
        let config = NadeoConfig {
            misbehaviour: Misbehaviour::EchoPassword,
            ..nadeo::config_with_login()
        };
        nadeo::spawn(World::default(), config).await.unwrap()
    };
    // The timeout outlasts TeamSpeak's 2 s gap between polls of one server: the daemon's own
    // first poll of it may have just ended when the probe asks. Rust's target polls every 5 s:
    // the other surfaces below wait for the daemon's own poll of it, and a first poll may
    // start anywhere in the interval.
    let text = format!(
        "[exporter]\ninterval = \"1h\"\ntimeout = \"10s\"\n\
         [[target]]\nname = \"tshock\"\nprotocol = \"terraria\"\naddress = \"{http_echo}\"\ntoken_file = \"{pw}\"\n\
         [[target]]\nname = \"pal\"\nprotocol = \"palworld\"\naddress = \"{http_echo}\"\npassword_file = \"{pw}\"\n\
         [[target]]\nname = \"ts3\"\nprotocol = \"teamspeak3\"\naddress = \"{ts3_echo}\"\nusername = \"serveradmin\"\npassword_file = \"{pw}\"\n\
         [[target]]\nname = \"rust\"\ngame = \"rust\"\naddress = \"{}\"\ninterval = \"5s\"\ntimeout = \"4s\"\nrcon = {{ port = {}, password_file = \"{pw}\" }}\n\
         [[target]]\nname = \"sdtd\"\ngame = \"sdtd\"\naddress = \"{}\"\ninterval = \"5s\"\ntimeout = \"4s\"\nrcon = {{ port = {}, password_file = \"{pw}\" }}\n\
         [[target]]\nname = \"tm2\"\ngame = \"trackmania2\"\naddress = \"{}\"\nusername = \"User\"\npassword_file = \"{pw}\"\n",
        rust.addr,
        rust_console.addr.port(),
        sdtd.addr,
        sdtd_console.addr.port(),
        nadeo_echo.addr,
    );
    let d = harness::start(&text, Arc::new(QueryProber)).await;
    for name in ["tshock", "pal", "ts3", "rust", "sdtd", "tm2"] {
        let path = format!("/probe?target={name}&debug=true");
        let body = http::plain(d.addr, "GET", &path, "")
            .await
            .unwrap()
            .text()
            .to_string();
        // The server's echo was received and shown (masked), so the check is not vacuous.
        assert!(
            body.contains("received"),
            "{name}: nothing received:\n{body}"
        );
        let dumped = dumped_bytes(&body);
        assert!(!dumped.is_empty(), "{name}: no dump:\n{body}");
        let dumped = String::from_utf8_lossy(&dumped);
        if name == "tm2" {
            // The login went out redacted, and the fault quoting it came back (masked).
            assert!(
                body.contains("Authenticate") && body.contains("redacted"),
                "{body}"
            );
            assert!(
                dumped.contains("password incorrect: User / "),
                "no echo:\n{dumped}"
            );
        }
        for form in forms_of(ECHOED) {
            assert!(
                !body.contains(&form),
                "{name}: {form:?} in the text:\n{body}"
            );
            assert!(
                !dumped.contains(&form),
                "{name}: {form:?} in the dumped bytes:\n{dumped}"
            );
        }
    }
    // The other surfaces, once the echoing consoles have answered.
    harness::wait_for(
        d.addr,
        &[
            "gameserver_entities{target=\"rust\",protocol=\"a2s\"} 184213",
            "gameserver_zombies{target=\"sdtd\",protocol=\"a2s\"} 12",
        ],
    )
    .await;
    let mut others = vec![("/metrics".to_string(), harness::metrics(d.addr).await)];
    for path in [
        "/api/v1/targets",
        "/",
        "/probe?target=rust",
        "/probe?target=sdtd",
    ] {
        let r = http::plain(d.addr, "GET", path, "").await.unwrap();
        others.push((path.to_string(), r.text().to_string()));
    }
    for (what, body) in &others {
        for form in forms_of(ECHOED) {
            assert!(!body.contains(&form), "{what}: {form:?} in:\n{body}");
        }
    }
    d.stop().await;
    drop((rust, rust_console, sdtd, sdtd_console, nadeo_echo));
    let _ = std::fs::remove_dir_all(&dir);
}
