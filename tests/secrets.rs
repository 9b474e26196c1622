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

    let d = harness::start(&text, Arc::new(QueryProber)).await;
    harness::wait_for(
        d.addr,
        &["gameserver_queries_total{target=\"mc\",protocol=\"minecraft\"} "],
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
        assert!(!body.contains(SECRET), "the secret is in {what}:\n{body}");
    }
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
