//! The command line: run the daemon (default), `check-config`, `query`, `games` and `demo`.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use gameserver_exporter::config;
use gameserver_exporter::daemon::Daemon;
use gameserver_exporter::games::Game;
use gameserver_exporter::http::web::Web;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::secret::Secret;
use gameserver_exporter::status::Status;
use gameserver_exporter::target::Address;
use gameserver_exporter::target::{CredentialKey, Credentials, Protocol, ProxyProtocol, Rcon, Tls};

/// mimalloc instead of glibc's malloc: at 100,000 targets glibc kept the start-up peak
/// resident (see the `mimalloc` entry in Cargo.toml). The load bench counts through the same
/// allocator, so its figures are this binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Configuration file.
    #[arg(long, default_value = config::DEFAULT_PATH)]
    config: PathBuf,
    /// Listen address; overrides exporter.listen.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// TLS and basic auth: a YAML file in exporter-toolkit's format (as node_exporter's),
    /// re-read on reload with the configuration.
    #[arg(long = "web.config.file", value_name = "PATH")]
    web_config_file: Option<PathBuf>,
    /// Poll and publish only shard I of N of the targets (I/N or I-of-N; Prometheus hashmod
    /// of the target name). Overrides $GAMESERVER_EXPORTER_SHARD, which overrides
    /// exporter.shard.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Log filter: a level (info, debug...) or tracing env-filter directives.
    #[arg(long, default_value = "info")]
    log_level: String,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a configuration file and exit.
    CheckConfig { path: PathBuf },
    /// Poll one server once and print what it says.
    Query(Box<QueryArgs>),
    /// List the game presets (`game = "..."` in a target): id, name, protocol, port, notes.
    Games {
        /// Print the Markdown table of docs/games.md instead.
        #[arg(long)]
        markdown: bool,
    },
    /// Run simulators of every protocol on 127.0.0.1 and the exporter polling them.
    Demo {
        #[arg(long, default_value = "127.0.0.1:10765")]
        listen: SocketAddr,
        /// Allow blackbox-style probes of 127.0.0.0/8 and ::1
        /// (`/probe?module=minecraft&target=127.0.0.1:PORT`), as `probe_allowed_networks` does
        #[arg(long)]
        allow_probes: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::CheckConfig { path }) => {
            let main = check_config(&path);
            let web = cli.web_config_file.as_deref().map(check_web_config);
            if main == ExitCode::SUCCESS && web != Some(ExitCode::FAILURE) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Some(Command::Games { markdown }) => {
            use gameserver_exporter::games;
            emit(&if markdown {
                games::markdown()
            } else {
                games::text()
            })
        }
        Some(Command::Query(args)) => runtime().block_on(run_query(*args)),
        Some(Command::Demo {
            listen,
            allow_probes,
        }) => {
            init_logs(cli.log_format, &cli.log_level);
            let options = gameserver_exporter::demo::Options { allow_probes };
            match runtime().block_on(gameserver_exporter::demo::run(listen, options, terminate())) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => {
            init_logs(cli.log_format, &cli.log_level);
            runtime().block_on(run_daemon(
                cli.config,
                cli.listen,
                cli.shard,
                cli.web_config_file,
            ))
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // `/metrics` and `/sd` render on a blocking thread (web::streamed). With tokio's 10 s
        // default a scrape every 15-60 s found its thread gone and started a new one, and
        // each new thread's allocator pages stayed resident after it: at 100,000 targets
        // VmRSS crept up by 2-6 MiB per scrape. Kept for 10 minutes, one thread serves them.
        .thread_keep_alive(std::time::Duration::from_secs(600))
        .build()
        .unwrap_or_else(|e| {
            eprintln!("error: cannot start the runtime: {e}");
            std::process::exit(1)
        })
}

fn init_logs(format: LogFormat, level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(level).unwrap_or_else(|e| {
        eprintln!("error: --log-level {level:?}: {e}");
        std::process::exit(2)
    });
    // Colour codes only on a terminal: journald, `kubectl logs` and log shippers would
    // otherwise store the escape bytes in every line. NO_COLOR (no-color.org) turns them off.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

fn check_config(path: &std::path::Path) -> ExitCode {
    match config::load(path) {
        Ok(c) => {
            println!("{}: OK ({} targets)", path.display(), c.targets.len());
            for i in &c.includes {
                match i.files.len() {
                    0 => println!("  include {:?}: matches no files", i.pattern),
                    n => println!("  include {:?}: {n} files", i.pattern),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `--web.config.file` given with `check-config`: the file parsed, its certificates and keys
/// read, as at start-up.
fn check_web_config(path: &std::path::Path) -> ExitCode {
    match Web::load(path.to_path_buf()) {
        Ok(w) => {
            let active = w.current();
            let tls = if active.tls.is_some() {
                "TLS"
            } else {
                "plain HTTP"
            };
            let users = active.users.as_ref().map_or(0, |u| u.len());
            println!("{}: OK ({tls}, {users} users)", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C elsewhere).
async fn terminate() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("shutting down");
}

async fn run_daemon(
    path: PathBuf,
    listen: Option<SocketAddr>,
    shard: Option<String>,
    web_config: Option<PathBuf>,
) -> ExitCode {
    let mut config = match config::load(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Lossy, not `var().ok()`: a value that is not UTF-8 must be refused, not ignored.
    let env =
        std::env::var_os(gameserver_exporter::shard::ENV).map(|v| v.to_string_lossy().into_owned());
    match gameserver_exporter::shard::resolve(
        shard.as_deref(),
        env.as_deref(),
        config.exporter.shard,
    ) {
        Ok((shard, source)) => {
            tracing::info!(%shard, %source, "shard");
            config.exporter.shard = Some(shard);
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    let web = match web_config.map(Web::load).transpose() {
        Ok(w) => w.unwrap_or_else(Web::none),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let tls = web.current().tls.is_some();
    let addr = listen.unwrap_or(config.exporter.listen);
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The bound address, so `--listen 127.0.0.1:0` (tests) logs the port it got.
    let addr = listener.local_addr().unwrap_or(addr);
    tracing::info!(%addr, tls, targets = config.targets.len(), "gameserver-exporter listening");
    let web = Arc::new(web);
    let daemon =
        Daemon::start_with_companion(config, Some(path), Some(web.clone()), Arc::new(QueryProber));
    #[cfg(unix)]
    let hup = {
        use tokio::signal::unix::{signal, SignalKind};
        let d = daemon.clone();
        match signal(SignalKind::hangup()) {
            Ok(mut s) => Some(tokio::spawn(async move {
                while s.recv().await.is_some() {
                    tracing::info!("SIGHUP: reloading configuration");
                    let _ = d.reload();
                }
            })),
            Err(e) => {
                tracing::warn!(error = %e, "cannot watch SIGHUP; reload over HTTP only");
                None
            }
        }
    };
    let result = gameserver_exporter::http::serve(daemon.clone(), web, listener, terminate()).await;
    #[cfg(unix)]
    if let Some(h) = hup {
        h.abort();
    }
    daemon.shutdown();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[derive(clap::Args)]
struct QueryArgs {
    // The protocol ids come from `Protocol::ALL`, so the help cannot miss one.
    #[arg(help = protocol_help())]
    protocol: String,
    /// host[:port]
    address: String,
    /// Print one JSON document with every field.
    #[arg(long)]
    json: bool,
    /// Deadline for the whole poll, DNS and retries included.
    #[arg(long, default_value = "3s", value_parser = humantime::parse_duration)]
    timeout: Duration,
    /// Code page of the server's strings (SA:MP), e.g. windows-1251.
    #[arg(long)]
    encoding: Option<String>,
    /// Also fetch the player list.
    #[arg(long)]
    players: bool,
    /// Also fetch the server's rules.
    #[arg(long)]
    rules: bool,
    /// Start the connection with a PROXY protocol header, v1 or v2, for a server behind
    /// HAProxy, Velocity or BungeeCord with proxy protocol on (TCP protocols only).
    #[arg(long, value_name = "v1|v2", value_parser = proxy_version)]
    proxy_protocol: Option<ProxyProtocol>,
    /// TeamSpeak 3 and 2: the voice port of the virtual server to select (`use port=` /
    /// `sel`; 9987 and 8767 unless given), as a target's `voice_port`.
    #[arg(long, value_name = "PORT")]
    voice_port: Option<u16>,
    /// A file holding the password (Factorio's RCON password, Palworld's admin password,
    /// a TeamSpeak ServerQuery login's), as a target's `password_file`. Never a password on
    /// the command line: other users see the command lines of running processes.
    #[arg(long, value_name = "FILE")]
    password_file: Option<std::path::PathBuf>,
    /// Also ask the server's health (or player names) over its admin console, logging in
    /// with the password in this file, as a target's `rcon.password_file`: Minecraft RCON
    /// (`tick query`, Paper's `tps`/`mspt`), Source RCON on A2S (`stats`, CS2 `status`,
    /// Project Zomboid and Conan Exiles player lists), Rust's WebRCON (`query rust ...`) and
    /// 7 Days to Die's telnet (`query sdtd ...`: `mem`).
    #[arg(long, value_name = "FILE")]
    rcon_password_file: Option<std::path::PathBuf>,
    /// The console's port for --rcon-password-file (unless given: Minecraft's 25575, Rust's
    /// 28016, 7 Days to Die's 8081, Source's 27015).
    #[arg(long, value_name = "PORT", requires = "rcon_password_file")]
    rcon_port: Option<u16>,
    /// A login name, as a target's `username` (TeamSpeak's ServerQuery login).
    #[arg(long, value_name = "NAME")]
    username: Option<String>,
    /// A file holding an API token, as a target's `token_file` (TShock's REST token).
    #[arg(long, value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// A file holding an API token, as a target's `api_token_file` (Satisfactory's HTTPS
    /// API).
    #[arg(long, value_name = "FILE")]
    api_token_file: Option<std::path::PathBuf>,
    /// A file holding an access code, as a target's `code_file` (Farming Simulator's stats
    /// feed code).
    #[arg(long, value_name = "FILE")]
    code_file: Option<std::path::PathBuf>,
    /// HTTP protocols: HTTPS with the certificate verified, as a target's `tls = true`.
    #[arg(long)]
    tls: bool,
    /// HTTP protocols: HTTPS, the server's certificate pinned ("sha256:<64 hex digits>"), as
    /// a target's `tls_fingerprint`: for self-signed certificates.
    #[arg(long, value_name = "sha256:HEX", value_parser = fingerprint, conflicts_with = "tls_insecure")]
    tls_fingerprint: Option<[u8; 32]>,
    /// HTTP protocols: HTTPS without any certificate check, as a target's
    /// `tls_insecure = true`.
    #[arg(long)]
    tls_insecure: bool,
}

/// A secret file named on the command line, with the config loader's warning when others
/// may read it.
fn read_secret(option: &str, path: &std::path::Path) -> Result<Secret, String> {
    let loaded = Secret::read(path).map_err(|e| format!("{option}: {e}"))?;
    if loaded.readable_by_others {
        eprintln!(
            "warning: {} is readable by group or others (chmod 600)",
            path.display()
        );
    }
    Ok(loaded.secret)
}

fn fingerprint(s: &str) -> Result<[u8; 32], String> {
    Tls::parse_fingerprint(s)
        .ok_or_else(|| "want \"sha256:\" and the certificate's 64 hex digits".to_string())
}

fn proxy_version(s: &str) -> Result<ProxyProtocol, String> {
    ProxyProtocol::from_name(s).ok_or_else(|| format!("{s:?} is not a version (want v1 or v2)"))
}

/// The help of `query`'s first argument: every protocol id, or a game id.
fn protocol_help() -> String {
    format!(
        "{}; or a game id from `games` (its protocol, default port and quirks); \
         a protocol id wins where a game has the same id: game:ID selects the game (game:ase \
         is ARK, ase the All-Seeing Eye protocol)",
        Protocol::names()
    )
}

/// Writes a command's output. A reader that went away (`query --json | head -1`) is not an
/// error of ours: `print!` would panic on the broken pipe, since Rust ignores SIGPIPE.
fn emit(text: &str) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(format_args!("cannot write the output: {e}")),
    }
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::FAILURE
}

async fn run_query(a: QueryArgs) -> ExitCode {
    let Some((protocol, game)) = Game::resolve(&a.protocol) else {
        return fail(format!(
            "unknown protocol {:?} (one of: {}; or a game id from \
             `gameserver-exporter games`, as game:ID where a protocol has the same id)",
            a.protocol,
            Protocol::names()
        ));
    };
    let mut address = match Address::parse(&a.address) {
        Ok(x) => x,
        Err(e) => return fail(format!("invalid address {:?}: {e}", a.address)),
    };
    if let (Some(g), None) = (game, address.port) {
        address.port = g.port_for(protocol);
    }
    if a.proxy_protocol.is_some() && !protocol.over_tcp() {
        return fail(format!(
            "--proxy-protocol: only TCP protocols ({}) can send a PROXY header; {protocol} runs \
             over UDP",
            Protocol::tcp_names()
        ));
    }
    if a.voice_port.is_some() && protocol.spec().voice_port.is_none() {
        return fail(format!(
            "--voice-port: only {} targets select a virtual server by voice port; this one is \
             {protocol}",
            Protocol::voice_names()
        ));
    }
    let mut req = Request::new(protocol, address);
    req.timeout = a.timeout;
    req.proxy_protocol = a.proxy_protocol;
    req.voice_port = a.voice_port;
    let mut credentials = Credentials::default();
    for (given, key, option) in [
        (a.username.is_some(), CredentialKey::Username, "--username"),
        (
            a.password_file.is_some(),
            CredentialKey::Password,
            "--password-file",
        ),
        (a.token_file.is_some(), CredentialKey::Token, "--token-file"),
        (
            a.api_token_file.is_some(),
            CredentialKey::ApiToken,
            "--api-token-file",
        ),
        (a.code_file.is_some(), CredentialKey::Code, "--code-file"),
        (
            a.rcon_password_file.is_some(),
            CredentialKey::Rcon,
            "--rcon-password-file",
        ),
    ] {
        if given && !protocol.credential_keys().contains(&key) {
            return fail(format!(
                "{option}: protocol {protocol} takes no {}",
                key.as_str()
            ));
        }
    }
    credentials.username = a.username.clone();
    for (path, slot, option) in [
        (
            &a.password_file,
            &mut credentials.password,
            "--password-file",
        ),
        (&a.token_file, &mut credentials.token, "--token-file"),
        (
            &a.api_token_file,
            &mut credentials.api_token,
            "--api-token-file",
        ),
        (&a.code_file, &mut credentials.code, "--code-file"),
    ] {
        if let Some(path) = path {
            match read_secret(option, path) {
                Ok(s) => *slot = Some(s),
                Err(e) => return fail(e),
            }
        }
    }
    if let Some(path) = &a.rcon_password_file {
        match read_secret("--rcon-password-file", path) {
            Ok(password) => {
                credentials.rcon = Some(Rcon {
                    port: a.rcon_port,
                    password,
                    console: game.map(|g| g.quirks.console).unwrap_or_default(),
                })
            }
            Err(e) => return fail(e),
        }
    }
    match query_tls(protocol, &a) {
        Ok(Some(tls)) => req.tls = tls,
        Ok(None) => {}
        Err(e) => return fail(e),
    }
    if credentials != Credentials::default() {
        req.credentials = Some(std::sync::Arc::new(credentials));
    }
    req.players = a.players;
    req.rules = a.rules;
    if let Some(g) = game {
        // A request the game never answers would only burn its share of the deadline.
        for (asked, answers, what) in [
            (&mut req.players, g.quirks.players, "player"),
            (&mut req.rules, g.quirks.rules, "rules"),
        ] {
            if *asked && !answers {
                *asked = false;
                eprintln!("note: {} never answers the {what} query; not sent", g.name);
            }
        }
    }
    req.detail = true;
    if let Some(label) = &a.encoding {
        match encoding_rs::Encoding::for_label(label.as_bytes()) {
            Some(enc) => req.encoding = enc,
            None => return fail(format!("unknown encoding {label:?}")),
        }
    }
    match query::poll(&req).await {
        Ok(status) => {
            if a.json {
                match serde_json::to_string_pretty(&status) {
                    Ok(s) => emit(&(s + "\n")),
                    Err(e) => fail(e),
                }
            } else {
                emit(&summary(&status))
            }
        }
        Err(f) => fail(f),
    }
}

/// `--tls`, `--tls-fingerprint`, `--tls-insecure`, with the config's rules: HTTP protocols
/// only, and verification off only when said in so many words. `None`: the protocol's
/// default.
fn query_tls(protocol: Protocol, a: &QueryArgs) -> Result<Option<Tls>, String> {
    let tls = match (a.tls_fingerprint, a.tls_insecure, a.tls) {
        (Some(pin), _, _) => Tls::Pinned(Box::new(pin)),
        (None, true, _) => Tls::Insecure,
        (None, false, true) => Tls::Verify,
        (None, false, false) => return Ok(None),
    };
    if protocol.http().is_none() {
        return Err(format!(
            "--tls*: only HTTP protocols use TLS settings; {protocol} does not"
        ));
    }
    Ok(Some(tls))
}

fn summary(s: &Status) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "name:     {}", s.name);
    let bots = s.bots.map(|b| format!(" ({b} bots)")).unwrap_or_default();
    let queued = s
        .queued
        .map(|q| format!(", {q} queued"))
        .unwrap_or_default();
    let _ = writeln!(out, "players:  {}/{}{bots}{queued}", s.online, s.max);
    for (label, v) in [("map", &s.map), ("game", &s.game), ("version", &s.version)] {
        if let Some(v) = v {
            let _ = writeln!(out, "{label:<9} {v}", label = format!("{label}:"));
        }
    }
    if let Some(p) = s.password {
        let _ = writeln!(out, "password: {}", if p { "yes" } else { "no" });
    }
    let _ = writeln!(out, "latency:  {:.1} ms", s.latency.as_secs_f64() * 1000.0);
    if let Some(players) = &s.players {
        let _ = writeln!(out, "player list ({}):", players.len());
        for p in players {
            let _ = write!(out, "  {}", p.name);
            if let Some(score) = p.score {
                let _ = write!(out, "  score {score}");
            }
            if let Some(d) = p.duration {
                let _ = write!(out, "  {d:.0}s");
            }
            if let Some(ping) = p.ping {
                let _ = write!(out, "  {ping} ms");
            }
            out.push('\n');
        }
    }
    if let Some(rules) = &s.rules {
        let _ = writeln!(out, "rules ({}):", rules.len());
        for (k, v) in rules {
            let _ = writeln!(out, "  {k} = {v}");
        }
    }
    if !s.extras.is_empty() {
        let _ = writeln!(out, "extras:");
        for (k, v) in &s.extras {
            let _ = writeln!(out, "  {k}: {v}");
        }
    }
    out
}
