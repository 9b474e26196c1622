//! The web config file (`--web.config.file`): exporter-toolkit's YAML, as node_exporter and
//! blackbox_exporter read it, parsed and validated into [`WebConfig`]. Reading the
//! certificates and building the TLS stack is [`super::tls`]'s job.
//!
//! ```yaml
//! tls_server_config:
//!   cert_file: server.crt          # relative paths are relative to this file's directory
//!   key_file: server.key
//!   client_auth_type: RequireAndVerifyClientCert   # default NoClientCert
//!   client_ca_file: clients.crt
//!   min_version: TLS12             # TLS12 (default) or TLS13
//!   max_version: TLS13
//! basic_auth_users:
//!   prometheus: $2y$10$...         # bcrypt hash, e.g. htpasswd -nbBC 10 "" PASSWORD
//! ```
//!
//! Unknown keys are refused with their name (a typo must not silently drop TLS or auth), and
//! so are toolkit keys this exporter does not implement (`cipher_suites`,
//! `curve_preferences`, `client_allowed_sans`, `http_server_config`, `rate_limit`...).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Deserialize;

/// A web config file larger than this is refused before parsing: real ones are a few
/// hundred bytes, thousands of users included.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebConfigError(pub String);

impl fmt::Display for WebConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WebConfigError {}

/// The validated file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebConfig {
    /// `None`: plain HTTP, as without a web config.
    pub tls: Option<TlsSettings>,
    /// User name to bcrypt hash; empty: no authentication.
    pub users: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
    pub client_auth: ClientAuth,
    pub client_ca_file: Option<PathBuf>,
    pub min_version: TlsVersion,
    pub max_version: TlsVersion,
}

/// Go's `tls.ClientAuthType` names, as the toolkit spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    NoClientCert,
    /// Asks for a certificate, accepts a connection without one, does not verify one given.
    RequestClientCert,
    /// Requires a certificate, does not verify it against a CA (possession of its key is
    /// still proven by the handshake).
    RequireAnyClientCert,
    /// Verifies a certificate if one is given, against `client_ca_file`.
    VerifyClientCertIfGiven,
    /// Requires a certificate that verifies against `client_ca_file`.
    RequireAndVerifyClientCert,
}

impl ClientAuth {
    const NAMES: [(&'static str, ClientAuth); 5] = [
        ("NoClientCert", ClientAuth::NoClientCert),
        ("RequestClientCert", ClientAuth::RequestClientCert),
        ("RequireAnyClientCert", ClientAuth::RequireAnyClientCert),
        (
            "VerifyClientCertIfGiven",
            ClientAuth::VerifyClientCertIfGiven,
        ),
        (
            "RequireAndVerifyClientCert",
            ClientAuth::RequireAndVerifyClientCert,
        ),
    ];

    fn verifies(self) -> bool {
        matches!(
            self,
            ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    Tls12,
    Tls13,
}

impl TlsVersion {
    fn parse(key: &str, s: &str) -> Result<TlsVersion, String> {
        match s {
            "TLS12" => Ok(TlsVersion::Tls12),
            "TLS13" => Ok(TlsVersion::Tls13),
            "TLS10" | "TLS11" => Err(format!(
                "tls_server_config.{key}: {s} is not supported: rustls implements TLS 1.2 and 1.3 only (use TLS12 or TLS13)"
            )),
            _ => Err(format!(
                "tls_server_config.{key}: unknown version {s:?} (one of TLS12, TLS13)"
            )),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tls_server_config: Option<TlsFile>,
    basic_auth_users: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsFile {
    cert_file: Option<String>,
    key_file: Option<String>,
    client_auth_type: Option<String>,
    client_ca_file: Option<String>,
    min_version: Option<String>,
    max_version: Option<String>,
}

/// Reads and validates `path`. File names inside are relative to its directory, as in the
/// toolkit.
pub fn load(path: &Path) -> Result<WebConfig, WebConfigError> {
    let fail = |msg: String| WebConfigError(format!("web config {}: {msg}", path.display()));
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(fail(format!(
            "{} bytes, more than the {MAX_FILE_BYTES} allowed",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    parse(&text, dir).map_err(fail)
}

/// Parses the YAML `text`; relative file names are joined to `dir`.
pub fn parse(text: &str, dir: &Path) -> Result<WebConfig, String> {
    // serde-saphyr's default budget caps alias expansion, nodes and depth, and duplicate
    // keys are an error (a second entry for a user must not silently replace the first).
    let file: File = if text.trim().is_empty() {
        File {
            tls_server_config: None,
            basic_auth_users: None,
        }
    } else {
        serde_saphyr::from_str(text).map_err(|e| {
            let e = e.without_snippet();
            let at = e
                .location()
                .map(|l| format!("line {} column {}: ", l.line(), l.column()))
                .unwrap_or_default();
            match e {
                // The library's own wording points at its API, not at the file.
                serde_saphyr::Error::DuplicateMappingKey { key, .. } => {
                    format!("{at}duplicate key {}", key.as_deref().unwrap_or("?"))
                }
                _ => {
                    let msg = e.to_string();
                    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                    format!("{at}{msg}")
                }
            }
        })?
    };
    let mut users = BTreeMap::new();
    for (user, hash) in file.basic_auth_users.unwrap_or_default() {
        if bcrypt::HashParts::from_str(&hash).is_err() {
            return Err(format!(
                "basic_auth_users.{user}: not a bcrypt hash (want $2y$..., e.g. from htpasswd -nbBC 10 \"\" PASSWORD)"
            ));
        }
        users.insert(user, hash);
    }
    let tls = match file.tls_server_config {
        None => None,
        Some(t) => tls(t, dir)?,
    };
    Ok(WebConfig { tls, users })
}

fn tls(t: TlsFile, dir: &Path) -> Result<Option<TlsSettings>, String> {
    let (cert_file, key_file) = match (t.cert_file, t.key_file) {
        (Some(c), Some(k)) => (c, k),
        // As in the toolkit: a TLS section without certificate and key means plain HTTP,
        // unless it asks for anything else, which could only be a mistake.
        (None, None) => {
            let rest = [
                ("client_auth_type", &t.client_auth_type),
                ("client_ca_file", &t.client_ca_file),
                ("min_version", &t.min_version),
                ("max_version", &t.max_version),
            ];
            if let Some((key, _)) = rest.iter().find(|(_, v)| v.is_some()) {
                return Err(format!(
                    "tls_server_config.{key} is set but cert_file and key_file are missing"
                ));
            }
            return Ok(None);
        }
        (None, Some(_)) => return Err("tls_server_config.cert_file is missing".into()),
        (Some(_), None) => return Err("tls_server_config.key_file is missing".into()),
    };
    let client_auth = match t.client_auth_type.as_deref() {
        None | Some("") => ClientAuth::NoClientCert,
        Some(s) => ClientAuth::NAMES
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, a)| *a)
            .ok_or_else(|| {
                let names: Vec<&str> = ClientAuth::NAMES.iter().map(|(n, _)| *n).collect();
                format!(
                    "tls_server_config.client_auth_type: unknown value {s:?} (one of {})",
                    names.join(", ")
                )
            })?,
    };
    let client_ca_file = t.client_ca_file.filter(|s| !s.is_empty());
    match (&client_ca_file, client_auth.verifies()) {
        (None, true) => {
            return Err(format!(
                "tls_server_config.client_ca_file is required with client_auth_type {client_auth:?}"
            ))
        }
        (Some(_), false) => {
            return Err(format!(
                "tls_server_config.client_ca_file is set but client_auth_type {client_auth:?} verifies no certificate (use VerifyClientCertIfGiven or RequireAndVerifyClientCert)"
            ))
        }
        _ => {}
    }
    let min_version = match t.min_version.as_deref() {
        None | Some("") => TlsVersion::Tls12,
        Some(s) => TlsVersion::parse("min_version", s)?,
    };
    let max_version = match t.max_version.as_deref() {
        None | Some("") => TlsVersion::Tls13,
        Some(s) => TlsVersion::parse("max_version", s)?,
    };
    if min_version > max_version {
        return Err("tls_server_config: min_version is above max_version".into());
    }
    let nonempty = |key: &str, s: String| {
        if s.is_empty() {
            Err(format!("tls_server_config.{key} is empty"))
        } else {
            Ok(dir.join(s))
        }
    };
    Ok(Some(TlsSettings {
        cert_file: nonempty("cert_file", cert_file)?,
        key_file: nonempty("key_file", key_file)?,
        client_auth,
        client_ca_file: client_ca_file.map(|f| dir.join(f)),
        min_version,
        max_version,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "$2y$04$Kf8cBwF7d.8e7Jq3r1zD8eU4YkF0m9s8JrWqLkWQm7zK6o1d3ZqXy";

    fn err(text: &str) -> String {
        parse(text, Path::new("/etc/gse")).unwrap_err()
    }

    /// A complete file: paths joined to the file's directory, names mapped.
    #[test]
    fn full_file() {
        let c = parse(
            &format!(
                "tls_server_config:\n  cert_file: a.crt\n  key_file: /k/a.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  min_version: TLS13\nbasic_auth_users:\n  prometheus: '{HASH}'\n"
            ),
            Path::new("/etc/gse"),
        )
        .unwrap();
        let t = c.tls.unwrap();
        assert_eq!(t.cert_file, Path::new("/etc/gse/a.crt"));
        assert_eq!(t.key_file, Path::new("/k/a.key"));
        assert_eq!(t.client_auth, ClientAuth::RequireAndVerifyClientCert);
        assert_eq!(
            t.client_ca_file.as_deref(),
            Some(Path::new("/etc/gse/ca.crt"))
        );
        assert_eq!(t.min_version, TlsVersion::Tls13);
        assert_eq!(t.max_version, TlsVersion::Tls13);
        assert_eq!(c.users["prometheus"], HASH);
    }

    /// Empty file, empty TLS section: plain HTTP without auth, as in the toolkit.
    #[test]
    fn empty_means_nothing() {
        assert_eq!(parse("", Path::new(".")).unwrap(), WebConfig::default());
        assert_eq!(
            parse("tls_server_config: {}\n", Path::new(".")).unwrap(),
            WebConfig::default()
        );
    }

    /// Every refusal names the key it is about.
    #[test]
    fn refusals() {
        let e = err("tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [x]\n");
        assert!(e.contains("line 4") && e.contains("cipher_suites"), "{e}");
        let e = err("basic_auth_user:\n  a: b\n");
        assert!(e.contains("basic_auth_user"), "{e}");
        let e = err("tls_server_config:\n  key_file: b\n");
        assert_eq!(e, "tls_server_config.cert_file is missing");
        let e = err("tls_server_config:\n  cert_file: b\n");
        assert_eq!(e, "tls_server_config.key_file is missing");
        let e = err("tls_server_config:\n  min_version: TLS13\n");
        assert_eq!(
            e,
            "tls_server_config.min_version is set but cert_file and key_file are missing"
        );
        let t = "tls_server_config:\n  cert_file: a\n  key_file: b\n";
        let e = err(&format!("{t}  min_version: TLS10\n"));
        assert!(
            e.starts_with("tls_server_config.min_version: TLS10 is not supported: rustls"),
            "{e}"
        );
        let e = err(&format!("{t}  min_version: TLS11\n"));
        assert!(e.contains("TLS11 is not supported"), "{e}");
        let e = err(&format!("{t}  max_version: SSL3\n"));
        assert!(
            e.starts_with("tls_server_config.max_version: unknown version"),
            "{e}"
        );
        let e = err(&format!("{t}  min_version: TLS13\n  max_version: TLS12\n"));
        assert_eq!(e, "tls_server_config: min_version is above max_version");
        let e = err(&format!("{t}  client_auth_type: Always\n"));
        assert!(e.starts_with("tls_server_config.client_auth_type: unknown value \"Always\" (one of NoClientCert, RequestClientCert"), "{e}");
        let e = err(&format!("{t}  client_auth_type: VerifyClientCertIfGiven\n"));
        assert!(
            e.starts_with("tls_server_config.client_ca_file is required"),
            "{e}"
        );
        let e = err(&format!("{t}  client_ca_file: ca.crt\n"));
        assert!(
            e.starts_with(
                "tls_server_config.client_ca_file is set but client_auth_type NoClientCert"
            ),
            "{e}"
        );
        let e = err("basic_auth_users:\n  alice: hunter2\n");
        assert!(
            e.starts_with("basic_auth_users.alice: not a bcrypt hash"),
            "{e}"
        );
        let e = err(&format!(
            "basic_auth_users:\n  a: '{HASH}'\n  a: '{HASH}'\n"
        ));
        assert_eq!(e, "line 3 column 3: duplicate key a");
        let e = err("- just\n- a list\n");
        assert!(!e.is_empty());
    }

    /// Billion laughs: alias expansion is capped by the parser's budget, quickly.
    #[test]
    fn alias_bomb_refused() {
        let mut doc = String::from("basic_auth_users:\n  a: &a [x, x, x, x, x, x, x, x, x]\n");
        for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
        {
            let refs = vec![format!("*{prev}"); 9].join(", ");
            doc.push_str(&format!("  {name}: &{name} [{refs}]\n"));
        }
        assert!(parse(&doc, Path::new(".")).is_err());
    }

    proptest::proptest! {
        /// Arbitrary text never panics the parser; it is a config or an error.
        #[test]
        fn arbitrary_text(t in "[ -~\n\t]{0,300}") {
            let _ = parse(&t, Path::new("."));
        }

        /// YAML-shaped noise built from the real keys.
        #[test]
        fn arbitrary_yaml(parts in proptest::collection::vec(proptest::sample::select(vec![
            "tls_server_config:", "basic_auth_users:", "  cert_file: a", "  key_file: b",
            "  client_auth_type: RequireAnyClientCert", "  min_version: TLS13", "  a: &x [*x]",
            "  u: $2y$04$abcdefghijklmnopqrstuu", "- x", "{", "]", "  ", "&a", "*a", "? k",
        ]), 0..20)) {
            let _ = parse(&parts.join("\n"), Path::new("."));
        }
    }

    /// An oversized file is refused before it is read.
    #[test]
    fn size_cap() {
        let path = std::env::temp_dir().join(format!("gse-web-big-{}.yml", std::process::id()));
        std::fs::write(&path, vec![b'#'; MAX_FILE_BYTES as usize + 1]).unwrap();
        let e = load(&path).unwrap_err().0;
        let _ = std::fs::remove_file(&path);
        assert!(e.contains("more than the 1048576 allowed"), "{e}");
    }
}
