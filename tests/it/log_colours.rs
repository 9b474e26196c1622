//! Text logs carry no terminal colour codes unless stderr is a terminal: journald, `kubectl
//! logs` and log shippers would store the escape bytes in every line.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// The daemon's first log line, written to a pipe, is plain text.
#[cfg(unix)]
#[test]
fn piped_text_logs_have_no_escape_codes() {
    let dir = std::env::temp_dir().join(format!("gse-log-colours-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("exporter.toml");
    std::fs::write(
        &config,
        "[[target]]\nname = \"one\"\nprotocol = \"samp\"\naddress = \"127.0.0.1:1\"\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
        .arg("--config")
        .arg(&config)
        .args(["--listen", "127.0.0.1:0", "--log-format", "text"])
        .env_remove("NO_COLOR")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    // The listening line is logged once the socket is bound; EOF (0) means the daemon died.
    let mut seen = Vec::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        seen.push(std::mem::take(&mut line));
        if seen.last().is_some_and(|l| l.contains("listening")) {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let listening = seen
        .iter()
        .find(|l| l.contains("gameserver-exporter listening"));
    let listening = listening.unwrap_or_else(|| panic!("no listening line in {seen:?}"));
    assert!(listening.contains("INFO"), "{listening:?}");
    for l in &seen {
        assert!(!l.contains('\x1b'), "escape code in {l:?}");
    }
}
