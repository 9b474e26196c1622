//! `/probe?module=M&target=HOST:PORT`, blackbox_exporter's form, against the daemon in-process
//! on 127.0.0.1:0: a protocol id and a `[module.NAME]` section polled over real sockets
//! against the in-process simulators, a game preset's query port for a port-less address
//! (through a recording prober: no traffic to a fixed port), the allow-list, the refusals and
//! the debug transcript.

use std::sync::{Arc, Mutex};

use crate::support::daemon as harness;
use crate::support::http;
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober, QueryProber};
use gameserver_exporter::simulate::{self, SimServer, World, WorldState};
use gameserver_exporter::status::{Failure, Reason, Status};
use harness::{start, target};
use http::get;

/// Allow-list for loopback only; a module with players, a label and a short timeout.
const CONFIG: &str = r#"
[exporter]
interval = "24h"
timeout = "2s"
probe_allowed_networks = ["127.0.0.0/8"]

[module.community]
game = "cs2"
timeout = "1s"
players = true
labels = { tier = "community" }
"#;

fn world() -> WorldState {
    WorldState {
        name: "blackbox".into(),
        map: "de_dust2".into(),
        game: "Counter-Strike".into(),
        version: "1.0".into(),
        max: 16,
        bots: 0,
        players: vec![("alice".into(), 5, 10.0)],
        rules: Vec::new(),
        password: false,
    }
}

async fn a2s() -> SimServer {
    simulate::a2s::spawn(World::new(world()), Default::default())
        .await
        .unwrap()
}

/// Records every address polled and answers up.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Prober for Recorder {
    fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        self.0.lock().unwrap().push(req.address.to_string());
        let r = if req.address.ip().is_some_and(|ip| ip.is_loopback()) {
            Ok(Status {
                online: 2,
                max: 10,
                ..Status::default()
            })
        } else {
            Err(Failure::new(Reason::Timeout, "not loopback"))
        };
        Box::pin(async move { r })
    }
}

/// A protocol id as the module polls the address with the `[exporter]` defaults; the series
/// are named after the address as the request gave it (Prometheus's `instance`).
#[tokio::test]
async fn protocol_module_polls_the_address() {
    let sim = a2s().await;
    let d = start(CONFIG, Arc::new(QueryProber)).await;
    let a = sim.addr;
    let r = get(d.addr, &format!("/probe?module=a2s&target={a}")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.text();
    assert!(
        body.contains(&format!(
            "gameserver_up{{target=\"{a}\",protocol=\"a2s\"}} 1\n"
        )),
        "{body}"
    );
    assert!(body.contains(&format!(
        "gameserver_players_online{{target=\"{a}\",protocol=\"a2s\"}} 1\n"
    )));
    // No player series without a module that turns them on, no counters in a probe.
    assert!(!body.contains("gameserver_player_info{"), "{body}");
    assert!(!body.contains("gameserver_queries_total"), "{body}");
    // A name inside the allowed networks is resolved once and that IP polled.
    let r = get(
        d.addr,
        &format!("/probe?module=a2s&target=localhost:{}", a.port()),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains(&format!(
        "gameserver_up{{target=\"localhost:{}\",protocol=\"a2s\"}} 1\n",
        a.port()
    )));
    d.stop().await;
}

/// A `[module.NAME]` section wins and brings its settings: the game, per-player series, its
/// labels.
#[tokio::test]
async fn configured_module_with_players() {
    let sim = a2s().await;
    let d = start(CONFIG, Arc::new(QueryProber)).await;
    let a = sim.addr;
    let r = get(d.addr, &format!("/probe?module=community&target={a}")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.text();
    let labels = format!("target=\"{a}\",protocol=\"a2s\",tier=\"community\"");
    assert!(
        body.contains(&format!("gameserver_up{{{labels}}} 1\n")),
        "{body}"
    );
    assert!(
        body.lines().any(|l| l.starts_with(&format!(
            "gameserver_player_info{{{labels},player=\"alice\""
        ))),
        "{body}"
    );
    d.stop().await;
}

/// A game id: the preset's protocol, and its query port when the address names none
/// (Valheim: game port 2456, query port 2457); an explicit port is the port polled, as in
/// a configured target. A game on its protocol's default port leaves the port to the
/// protocol (27015 for A2S).
#[tokio::test]
async fn preset_module_ports() {
    let rec = Arc::new(Recorder::default());
    let d = start(CONFIG, rec.clone()).await;
    for (path, polled) in [
        ("/probe?module=valheim&target=127.0.0.1", "127.0.0.1:2457"),
        (
            "/probe?module=valheim&target=127.0.0.1:2456",
            "127.0.0.1:2456",
        ),
        ("/probe?module=cs2&target=127.0.0.1", "127.0.0.1:27015"),
        ("/probe?module=samp&target=127.0.0.1", "127.0.0.1:7777"),
        // A protocol id wins over a game id: `ase` is the All-Seeing Eye (its default port,
        // MTA's), `game:ase` is ARK: Survival Evolved (its query port).
        ("/probe?module=ase&target=127.0.0.1", "127.0.0.1:22126"),
        ("/probe?module=game:ase&target=127.0.0.1", "127.0.0.1:27015"),
        (
            "/probe?module=game:valheim&target=127.0.0.1",
            "127.0.0.1:2457",
        ),
    ] {
        rec.0.lock().unwrap().clear();
        let r = get(d.addr, path).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(*rec.0.lock().unwrap(), [polled], "{path}");
        let target = path.split("target=").nth(1).unwrap();
        let protocol = if path.contains("samp") {
            "samp"
        } else if path.contains("module=ase") {
            "ase"
        } else {
            "a2s"
        };
        assert!(
            r.text().contains(&format!(
                "gameserver_up{{target=\"{target}\",protocol=\"{protocol}\"}} 1\n"
            )),
            "{}",
            r.text()
        );
    }
    d.stop().await;
}

/// Refusals: an unknown module is a 400 naming it; outside the allowed networks (or with none
/// configured) the module form is refused exactly as `protocol=&address=` is, before any
/// traffic; `module` with `protocol`/`address`, without `target`, or twice is a usage error;
/// `target` alone keeps meaning a configured target.
#[tokio::test]
async fn refusals() {
    let rec = Arc::new(Recorder::default());
    let text = format!("{CONFIG}{}", target("configured", "a2s", "127.0.0.1:1", ""));
    let d = start(&text, rec.clone()).await;
    let r = get(d.addr, "/probe?module=quake9&target=127.0.0.1:1").await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        "unknown module \"quake9\": not a [module.quake9] section of the configuration, a protocol id or a game id\n"
    );
    let outside = get(d.addr, "/probe?module=community&target=10.1.2.3:27015").await;
    let same = get(d.addr, "/probe?protocol=a2s&address=10.1.2.3:27015").await;
    assert_eq!((outside.status, same.status), (403, 403));
    assert_eq!(
        outside.text(),
        "10.1.2.3:27015 resolves to 10.1.2.3, outside exporter.probe_allowed_networks\n"
    );
    assert_eq!(outside.text(), same.text());
    let usage = "want ?target=NAME, ?protocol=P&address=A or ?module=M&target=HOST:PORT\n";
    for path in [
        "/probe?module=a2s&protocol=a2s&address=127.0.0.1",
        "/probe?module=a2s&address=127.0.0.1",
        "/probe?module=a2s",
    ] {
        let r = get(d.addr, path).await;
        assert_eq!((r.status, r.text()), (400, usage), "{path}");
    }
    let r = get(d.addr, "/probe?module=a2s&module=samp&target=127.0.0.1").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.text(), "parameter \"module\" given more than once\n");
    let r = get(d.addr, "/probe?module=a2s&target=127.0.0.1:bad").await;
    assert_eq!(r.status, 400);
    // Without `module`, `target` is a configured name, as it always was.
    let r = get(d.addr, "/probe?target=configured").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(get(d.addr, "/probe?target=127.0.0.1:1").await.status, 404);
    // The configured target only (its scheduled poll and the probe): nothing refused polled.
    let polled = rec.0.lock().unwrap().clone();
    assert!(polled.iter().all(|a| a == "127.0.0.1:1"), "{polled:?}");
    d.stop().await;

    // No allowed networks: the module form is off like every ad-hoc probe.
    rec.0.lock().unwrap().clear();
    let d = start("[exporter]\ninterval = \"24h\"\n", rec.clone()).await;
    let r = get(d.addr, "/probe?module=a2s&target=127.0.0.1:1").await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        "ad-hoc probes are disabled (exporter.probe_allowed_networks is empty)\n"
    );
    assert!(rec.0.lock().unwrap().is_empty());
    d.stop().await;
}

/// `debug=true` with the module form: the transcript says what the module resolved to,
/// where the address resolved, the exchange, and ends up; the series are the module's.
#[tokio::test]
async fn debug_transcript() {
    let sim = a2s().await;
    let d = start(CONFIG, Arc::new(QueryProber)).await;
    let port = sim.addr.port();
    let r = get(
        d.addr,
        &format!("/probe?module=community&target=localhost:{port}&debug=true"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.text();
    let events: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("[+"))
        .filter_map(|l| l.split_once("] ").map(|(_, e)| e))
        .collect();
    assert_eq!(
        events[0],
        "module \"community\" is the configuration's [module.community]: protocol a2s, game counterstrike2",
        "{body}"
    );
    assert_eq!(
        events[1],
        format!(
            "resolved \"localhost:{port}\" to 127.0.0.1:{port}, inside allowed network 127.0.0.0/8"
        )
    );
    assert_eq!(events.last(), Some(&"finished: up"), "{body}");
    assert!(
        body.contains(&format!(
            "gameserver_up{{target=\"localhost:{port}\",protocol=\"a2s\",tier=\"community\"}} 1"
        )),
        "{body}"
    );
    let r = get(d.addr, "/probe?module=valheim&target=10.1.2.3&debug=true").await;
    assert_eq!(r.status, 403);
    assert!(!r.text().contains("Transcript"));
    d.stop().await;
}

/// `/probe?module=game:<id>&target=<its simulator>` for every preset: the preset resolves to
/// its protocol, polls that protocol's simulator on 127.0.0.1 and publishes it up. A
/// protocol that answers nothing without a login (an ad-hoc probe carries no credentials)
/// must say so: down, `auth_refused` in the transcript.
#[tokio::test]
async fn every_preset_probes_its_simulator() {
    use gameserver_exporter::games::list::GAMES;
    use gameserver_exporter::target::Protocol;
    let d = start(CONFIG, Arc::new(QueryProber)).await;
    let mut sims = Vec::new();
    for p in Protocol::ALL {
        let sim = (simulate::simulator(p).spawn)(World::new(world()))
            .await
            .unwrap();
        sims.push((p, sim));
    }
    let mut failures = Vec::new();
    for game in GAMES {
        let Some((p, sim)) = sims.iter().find(|(p, _)| *p == game.protocol) else {
            failures.push(format!("{}: no simulator for {}", game.id, game.protocol));
            continue;
        };
        let a = sim.addr;
        let path = format!("/probe?module=game:{}&target={a}", game.id);
        let r = get(d.addr, &path).await;
        let body = r.text();
        let line = |family: &str| {
            body.lines()
                .find(|l| l.starts_with(family) && l.contains(&format!("target=\"{a}\"")))
                .unwrap_or_default()
                .to_string()
        };
        let up = line("gameserver_up{");
        // The world's one player, as the simulator serves it (Satisfactory's Lightweight
        // Query carries no counts: they come from its HTTPS API, which needs a token).
        let counted = *p != Protocol::Satisfactory;
        if counted && up.ends_with(" 1") && !line("gameserver_players_online{").ends_with(" 1") {
            failures.push(format!(
                "{p} by {}: online {:?}",
                game.id,
                line("gameserver_players_online{")
            ));
        }
        // Factorio's and ARK's RCON answer nothing before a login: the poll is not even
        // tried without one, and the transcript says why.
        let login_only = simulate::simulator(*p).password.is_some() && up.ends_with(" 0") && {
            let why = get(d.addr, &format!("{path}&debug=true")).await;
            let why = why.text();
            why.contains("finished: auth_refused: ") && why.contains("needs credentials")
        };
        if r.status != 200 || !(up.ends_with(" 1") || login_only) {
            failures.push(format!("{p} by {}: {} {up:?}\n{body}", game.id, r.status));
        }
    }
    d.stop().await;
    assert!(failures.is_empty(), "{failures:#?}");
}
