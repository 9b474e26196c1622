//! Secrets read from files: passwords, tokens and RCON passwords a configured target logs in
//! with.
//!
//! A [`Secret`] holds the bytes and shows them only through [`Secret::expose`], which the
//! few places that put it on the wire call. Its `Debug` prints `Secret(<redacted>)`; it has
//! no `Display` and no `Serialize`, so a secret cannot reach a label, a log line, a JSON
//! answer or an error message by formatting the value that holds it. Part of the shared
//! vocabulary: std only, no runtime.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The largest secret file read: passwords and API tokens are far shorter; anything bigger
/// is the wrong file.
pub const MAX_SECRET_BYTES: u64 = 4096;

/// A password or token. Compared by value, so a target whose secret file changed is a
/// changed target on reload.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Box<str>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Why a secret file could not be used. Names the file and the problem, never its content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("cannot read {path}: {detail}")]
    Read { path: String, detail: String },
    #[error("{path} is larger than {MAX_SECRET_BYTES} bytes")]
    TooLarge { path: String },
    #[error("{path} is empty")]
    Empty { path: String },
    #[error("{path} is not UTF-8 text")]
    NotText { path: String },
}

/// A secret read from its file, and whether others than the owner may read that file (the
/// config loader warns then).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub secret: Secret,
    pub readable_by_others: bool,
}

impl Secret {
    /// A secret from memory (tests, simulators). Configured targets read theirs from files.
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into().into_boxed_str())
    }

    /// The bytes, for the one place that writes them into a request.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Reads `path`: at most [`MAX_SECRET_BYTES`], one trailing newline (`\n` or `\r\n`)
    /// trimmed, an empty result refused.
    pub fn read(path: &Path) -> Result<Loaded, SecretError> {
        let shown = || path.display().to_string();
        let read_err = |e: std::io::Error| SecretError::Read {
            path: shown(),
            detail: e.kind().to_string(),
        };
        let file = std::fs::File::open(path).map_err(read_err)?;
        let meta = file.metadata().map_err(read_err)?;
        let readable_by_others = readable_by_others(&meta);
        let mut bytes = Vec::new();
        file.take(MAX_SECRET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
        if bytes.len() as u64 > MAX_SECRET_BYTES {
            return Err(SecretError::TooLarge { path: shown() });
        }
        let mut text =
            String::from_utf8(bytes).map_err(|_| SecretError::NotText { path: shown() })?;
        if text.ends_with('\n') {
            text.pop();
            if text.ends_with('\r') {
                text.pop();
            }
        }
        if text.is_empty() {
            return Err(SecretError::Empty { path: shown() });
        }
        Ok(Loaded {
            secret: Secret::new(text),
            readable_by_others,
        })
    }
}

#[cfg(unix)]
fn readable_by_others(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o044 != 0
}

#[cfg(not(unix))]
fn readable_by_others(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("gse-secret-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn file(dir: &Path, name: &str, content: &[u8], mode: u32) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, content).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = mode;
        p
    }

    /// Debug never shows the bytes.
    #[test]
    fn debug_is_redacted() {
        let s = Secret::new("hunter2");
        assert_eq!(format!("{s:?}"), "Secret(<redacted>)");
        assert_eq!(s.expose(), "hunter2");
    }

    /// One trailing newline goes, inner and leading whitespace stays; empty, oversized and
    /// missing files are errors naming the file, never the content.
    #[test]
    fn reads_files() {
        let dir = scratch("reads");
        let d = dir.as_path();
        let ok = Secret::read(&file(d, "a", b" pass word\n", 0o600)).unwrap();
        assert_eq!(ok.secret.expose(), " pass word");
        assert!(!ok.readable_by_others);
        let crlf = Secret::read(&file(d, "b", b"pw\r\n", 0o600)).unwrap();
        assert_eq!(crlf.secret.expose(), "pw");
        let two = Secret::read(&file(d, "c", b"pw\n\n", 0o600)).unwrap();
        assert_eq!(two.secret.expose(), "pw\n");
        assert!(matches!(
            Secret::read(&file(d, "e", b"\n", 0o600)),
            Err(SecretError::Empty { .. })
        ));
        let big = vec![b'x'; MAX_SECRET_BYTES as usize + 1];
        let e = Secret::read(&file(d, "f", &big, 0o600)).unwrap_err();
        assert!(matches!(e, SecretError::TooLarge { .. }));
        assert!(!e.to_string().contains("xxxx"));
        assert!(matches!(
            Secret::read(&d.join("missing")),
            Err(SecretError::Read { .. })
        ));
        assert!(matches!(
            Secret::read(&file(d, "g", &[0xff, 0xfe], 0o600)),
            Err(SecretError::NotText { .. })
        ));
    }

    /// A file others may read is flagged for the loader's warning.
    #[cfg(unix)]
    #[test]
    fn flags_readable_files() {
        let dir = scratch("flags");
        let loaded = Secret::read(&file(&dir, "w", b"pw", 0o644)).unwrap();
        assert!(loaded.readable_by_others);
        let group = Secret::read(&file(&dir, "g", b"pw", 0o640)).unwrap();
        assert!(group.readable_by_others);
    }
}
