//! `[exporter] include`: target files found by glob next to the main file, their errors
//! located in the included file, duplicates across files, and reload picking up changes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use gameserver_exporter::config::{self, Include};
use gameserver_exporter::daemon::Daemon;
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober};
use gameserver_exporter::status::{Failure, Reason};

/// A fresh directory under the system temp dir, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new() -> Dir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "gse-include-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn main(&self, text: &str) -> PathBuf {
        self.write("exporter.toml", text)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn target(name: &str) -> String {
    format!("[[target]]\nname = \"{name}\"\nprotocol = \"a2s\"\naddress = \"127.0.0.1:1\"\n")
}

fn names(c: &config::Config) -> Vec<&str> {
    c.targets.iter().map(|t| t.name.as_str()).collect()
}

fn load_err(path: &Path) -> String {
    config::load(path).unwrap_err().0
}

/// Globs are relative to the main file, read in sorted order after the main file's targets;
/// directories, hidden files and other extensions are not read; literal paths work too.
#[test]
fn globs_and_literals() {
    let d = Dir::new();
    d.write(
        "targets.d/b.toml",
        &format!("{}{}", target("b1"), target("b2")),
    );
    d.write("targets.d/a.toml", &target("a1"));
    d.write("targets.d/.hidden.toml", "this is not toml");
    d.write("targets.d/notes.txt", "this is not toml");
    d.write("targets.d/sub.toml/x.toml", "this is not toml");
    d.write("extra/one.toml", &target("extra"));
    let main = d.main(&format!(
        "[exporter]\ninclude = [\"targets.d/*.toml\", \"extra/one.toml\"]\n{}",
        target("main")
    ));
    let c = config::load(&main).unwrap();
    assert_eq!(names(&c), ["main", "a1", "b1", "b2", "extra"]);
    assert_eq!(
        c.includes,
        [
            Include {
                pattern: "targets.d/*.toml".into(),
                files: vec!["targets.d/a.toml".into(), "targets.d/b.toml".into()],
            },
            Include {
                pattern: "extra/one.toml".into(),
                files: vec!["extra/one.toml".into()],
            },
        ]
    );
}

/// A glob that matches nothing is fine and reported as such; the main file is never read
/// again, nor a file matched by two patterns.
#[test]
fn empty_glob_self_and_overlap() {
    let d = Dir::new();
    d.write("t/x.toml", &target("x"));
    let main = d.main(&format!(
        "[exporter]\ninclude = [\"none.d/*.toml\", \"*.toml\", \"t/*.toml\", \"t/x.toml\"]\n{}",
        target("main")
    ));
    let c = config::load(&main).unwrap();
    assert_eq!(names(&c), ["main", "x"]);
    let files: Vec<usize> = c.includes.iter().map(|i| i.files.len()).collect();
    assert_eq!(files, [0, 0, 1, 0]);
}

/// A missing literal path is an error naming the main file, line and key.
#[test]
fn missing_literal() {
    let d = Dir::new();
    let main =
        d.main("[exporter]\ninterval = \"15s\"\ninclude = [\"t/*.toml\", \"missing.toml\"]\n");
    assert_eq!(
        load_err(&main),
        "exporter.toml:3: exporter.include[1]: cannot read \"missing.toml\": No such file or directory (os error 2)"
    );
}

/// A pattern glob cannot parse is refused.
#[test]
fn bad_pattern() {
    let d = Dir::new();
    let main = d.main("[exporter]\ninclude = [\"t/***.toml\"]\n");
    assert_eq!(
        load_err(&main),
        "exporter.toml:2: exporter.include[0]: invalid pattern \"t/***.toml\": Pattern syntax error near position 4: wildcards are either regular `*` or recursive `**`"
    );
    let main = d.main("[exporter]\ninclude = [\"\"]\n");
    assert_eq!(
        load_err(&main),
        "exporter.toml:2: exporter.include[0]: must not be empty"
    );
}

/// Errors inside an included file name that file, its line and the key, like the main
/// file's errors; anything but [[target]] is refused there.
#[test]
fn errors_in_included_files() {
    let d = Dir::new();
    let main = d.main("[exporter]\ninclude = [\"t/*.toml\"]\n");
    d.write(
        "t/a.toml",
        &format!(
            "{}{}",
            target("a"),
            target("b").replace("127.0.0.1:1", "x:99999")
        ),
    );
    assert_eq!(
        load_err(&main),
        "t/a.toml:8: target \"b\".address: invalid address \"x:99999\": invalid port \"99999\""
    );
    d.write("t/a.toml", &format!("{}port = 1\n", target("a")));
    assert_eq!(
        load_err(&main),
        "t/a.toml:5: target \"a\".port: unknown field `port`, expected one of `name`, `protocol`, `address`, `interval`, `timeout`, `encoding`, `max_reply_bytes`, `max_split_packets`, `labels`, `game`, `players`, `rules`, `proxy_protocol`, `tls`, `tls_fingerprint`, `tls_insecure`, `voice_port`, `max_players`, `username`, `password_file`, `token_file`, `api_token_file`, `code_file`, `rcon`"
    );
    d.write(
        "t/a.toml",
        &format!("[exporter]\ninterval = \"1s\"\n{}", target("a")),
    );
    assert_eq!(
        load_err(&main),
        "t/a.toml:1: exporter: unknown field `exporter`, expected `target`"
    );
    d.write("t/a.toml", &format!("include = [\"x\"]\n{}", target("a")));
    assert_eq!(
        load_err(&main),
        "t/a.toml:1: include: unknown field `include`, expected `target`"
    );
    d.write(
        "t/a.toml",
        "[[target]]\nname = \"a\"\ngame = \"nope\"\naddress = \"h\"\n",
    );
    assert_eq!(
        load_err(&main),
        "t/a.toml:3: target \"a\".game: unknown game \"nope\" (`gameserver-exporter games` lists them)"
    );
    d.write("t/a.toml", "[[target]\n");
    assert!(
        load_err(&main).starts_with("t/a.toml:1: "),
        "{}",
        load_err(&main)
    );
}

/// A name used twice across files is refused, naming both places (file:line each).
#[test]
fn duplicate_across_files() {
    let d = Dir::new();
    let main = d.main(&format!(
        "[exporter]\ninclude = [\"t/*.toml\"]\n\n{}",
        target("x")
    ));
    d.write("t/a.toml", &format!("{}{}", target("y"), target("x")));
    assert_eq!(
        load_err(&main),
        "t/a.toml:6: target[1].name: duplicate name \"x\" (first used at exporter.toml:5)"
    );
    d.write("t/a.toml", &target("y"));
    d.write("t/b.toml", &format!("\n{}", target("y")));
    assert_eq!(
        load_err(&main),
        "t/b.toml:3: target[0].name: duplicate name \"y\" (first used at t/a.toml:2)"
    );
}

/// `parse` (no file to be relative to) refuses `include`.
#[test]
fn parse_without_a_file() {
    assert_eq!(
        config::parse("exporter.toml", "[exporter]\ninclude = [\"t/*.toml\"]\n")
            .unwrap_err()
            .0,
        "exporter.toml:2: exporter.include: needs the configuration to be read from a file (patterns are relative to it)"
    );
}

/// check-config counts the included targets and says what each pattern matched.
#[test]
fn check_config_reports_includes() {
    let d = Dir::new();
    d.write("t/a.toml", &format!("{}{}", target("a"), target("b")));
    let main = d.main("[exporter]\ninclude = [\"t/*.toml\", \"none/*.toml\"]\n");
    let out = Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
        .arg("check-config")
        .arg(&main)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{}: OK (2 targets)\n  include \"t/*.toml\": 1 files\n  include \"none/*.toml\": matches no files\n",
            main.display()
        )
    );
}

/// Answers nothing: these tests look at configuration, not polls.
struct Silent;

impl Prober for Silent {
    fn poll<'a>(&'a self, _req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        Box::pin(async { Err(Failure::new(Reason::Timeout, "silent")) })
    }
}

/// A reload (SIGHUP and POST /-/reload both call it) re-reads the included files: a changed
/// file's targets are added and removed, a new file matching the glob is picked up, and an
/// included file with an error is refused while the running targets stay.
#[tokio::test]
async fn reload_rereads_included_files() {
    let d = Dir::new();
    d.write("t/a.toml", &target("a"));
    let main = d.main(&format!(
        "[exporter]\ninclude = [\"t/*.toml\"]\n{}",
        target("main")
    ));
    let daemon = Daemon::start(
        config::load(&main).unwrap(),
        Some(main.clone()),
        Arc::new(Silent),
    );
    let names =
        |d: &Daemon| -> Vec<String> { d.config().targets.iter().map(|t| t.name.clone()).collect() };
    assert_eq!(names(&daemon), ["main", "a"]);

    d.write("t/a.toml", &format!("{}{}", target("a2"), target("a3")));
    d.write("t/b.toml", &target("b"));
    let diff = daemon.reload().unwrap();
    assert_eq!(names(&daemon), ["main", "a2", "a3", "b"]);
    assert_eq!((diff.added.len(), diff.removed.len()), (3, 1));

    d.write("t/b.toml", &target("b").replace("a2s", "doom"));
    let e = daemon.reload().unwrap_err();
    assert_eq!(
        e.0,
        format!(
            "t/b.toml:3: target \"b\".protocol: unknown protocol \"doom\" (one of: {})",
            gameserver_exporter::target::Protocol::names()
        )
    );
    assert_eq!(names(&daemon), ["main", "a2", "a3", "b"]);
    daemon.shutdown();
}
