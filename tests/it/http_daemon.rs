//! The HTTP APIs through the daemon with credentials from files: a TShock that wants a token,
//! a Palworld behind basic auth, a TShock over HTTPS with a pinned self-signed certificate.
//! Every target is up with its values and Palworld's health; `/probe?debug=true` shows the
//! request lines and responses with the token and the Authorization header redacted, and no
//! surface shows a secret.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::palworld::{self, PalworldConfig};
use gameserver_exporter::simulate::terraria::{self, TerrariaConfig};
use gameserver_exporter::simulate::{World, WorldState};

use crate::support::daemon as harness;
use crate::support::{http, tls_sim};
use harness::{metrics, start, target, wait_for};

const TOKEN: &str = "tok-SECRET-4242";
const PASSWORD: &str = "pal-SECRET-7777";

fn world(name: &str) -> World {
    World::new(WorldState {
        name: name.into(),
        map: "Forest".into(),
        max: 8,
        players: vec![("Alice".into(), 3, 0.0)],
        ..WorldState::default()
    })
}

fn secret_file(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("{text}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path.display().to_string()
}

/// The whole reply, head and body, as text (every byte of it is searched for secrets).
async fn get(addr: std::net::SocketAddr, path: &str) -> String {
    let r = http::get(addr, path).await;
    format!(
        "{}

{}",
        r.head,
        String::from_utf8_lossy(&r.body)
    )
}

/// The bytes of a transcript's hex dumps, read from their text columns and joined (line
/// breaks inside the bytes show as `.`).
fn dumped(transcript: &str) -> String {
    transcript
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_hexdigit()) && l.ends_with('|'))
        .filter_map(|l| {
            let start = l.find('|')?;
            Some(&l[start + 1..l.len() - 1])
        })
        .collect()
}

#[tokio::test]
async fn credentials_pins_and_transcripts() {
    let dir = std::env::temp_dir().join(format!("gse-http-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token_file = secret_file(&dir, "tshock.token", TOKEN);
    let password_file = secret_file(&dir, "palworld.password", PASSWORD);
    let tshock = terraria::spawn(
        world("TShock Token"),
        TerrariaConfig {
            token: Some(TOKEN.into()),
            ..TerrariaConfig::default()
        },
    )
    .await
    .unwrap();
    let pal = palworld::spawn(
        world("Pal Auth"),
        PalworldConfig {
            password: Some(PASSWORD.into()),
            ..PalworldConfig::default()
        },
    )
    .await
    .unwrap();
    let (tls, pin, _) = tls_sim::self_signed();
    let pinned = terraria::spawn(
        world("TShock Pinned"),
        TerrariaConfig {
            tls: Some(tls),
            ..TerrariaConfig::default()
        },
    )
    .await
    .unwrap();
    let text = format!(
        "[exporter]\nlisten = \"127.0.0.1:0\"\ninterval = \"1s\"\ntimeout = \"900ms\"\n{}\n{}\n{}",
        target(
            "tshock",
            "terraria",
            &tshock.addr.to_string(),
            &format!("token_file = \"{token_file}\"\n")
        ),
        target(
            "pal",
            "palworld",
            &pal.addr.to_string(),
            &format!("password_file = \"{password_file}\"\nplayers = true\n")
        ),
        target(
            "pinned",
            "terraria",
            &pinned.addr.to_string(),
            &format!("tls_fingerprint = \"{pin}\"\n")
        ),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let body = wait_for(
        d.addr,
        &[
            "gameserver_up{target=\"tshock\",protocol=\"terraria\"} 1",
            "gameserver_up{target=\"pal\",protocol=\"palworld\"} 1",
            "gameserver_up{target=\"pinned\",protocol=\"terraria\"} 1",
            "gameserver_players_online{target=\"pal\",protocol=\"palworld\"} 1",
            "gameserver_tick_rate_hertz{target=\"pal\",protocol=\"palworld\"} 58",
            "gameserver_tick_duration_seconds{target=\"pal\",protocol=\"palworld\"} 0.01725",
        ],
    )
    .await;
    assert!(body.contains("name=\"TShock Token\""), "{body}");
    let mut surfaces = vec![body, metrics(d.addr).await];
    for t in ["tshock", "pal", "pinned"] {
        let transcript = get(d.addr, &format!("/probe?target={t}&debug=true")).await;
        assert!(dumped(&transcript).contains("HTTP/1.1 200"), "{transcript}");
        surfaces.push(transcript);
    }
    let tshock_t = dumped(&surfaces[2]);
    assert!(
        tshock_t.contains("GET /v2/server/status?players=false&token=<redacted 15 bytes> HTTP/1.1"),
        "{tshock_t}"
    );
    let pal_t = dumped(&surfaces[3]);
    assert!(pal_t.contains("GET /v1/api/metrics HTTP/1.1"), "{pal_t}");
    assert!(
        pal_t.contains("Authorization: <redacted 34 bytes>"),
        "{pal_t}"
    );
    assert!(pal_t.contains("\"currentplayernum\":1"), "{pal_t}");
    surfaces.push(get(d.addr, "/api/v1/targets").await);
    surfaces.push(get(d.addr, "/").await);
    let basic = "cGFsLVNFQ1JFVC03Nzc3"; // base64 of the password alone, for good measure
    for s in &surfaces {
        for secret in [TOKEN, PASSWORD, "YWRtaW46cGFsLVNFQ1JFVC03Nzc3", basic] {
            assert!(!s.contains(secret), "a secret leaked: {s}");
        }
    }
    d.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
