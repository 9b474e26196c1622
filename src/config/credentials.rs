//! A target's credentials: which keys its protocol takes, and the secrets read from the
//! files they name. Read at every load and reload, so a changed file takes effect on
//! reload; a file others may read is used with a warning naming the file. No message here
//! ever holds a secret: errors and warnings name the key and the file.

use std::path::Path;
use std::sync::Arc;

use toml::Spanned;

use super::location::Ctx;
use super::model::ConfigError;
use super::schema::{RawRcon, RawTarget};
use crate::secret::Secret;
use crate::target::{Console, CredentialKey, Credentials, Protocol, Rcon};

/// The target's credential keys, checked against its protocol, with every secret file read
/// (at each load and reload, so a changed file takes effect on reload). A file others may
/// read is used, with a warning naming the file (never its content).
pub(super) fn credentials(
    ctx: &Ctx,
    key: &dyn Fn(&str) -> String,
    t: &RawTarget,
    protocol: Protocol,
    dir: &Path,
    name: &str,
) -> Result<Option<Arc<Credentials>>, ConfigError> {
    let given: [(CredentialKey, Option<std::ops::Range<usize>>); 6] = [
        (
            CredentialKey::Username,
            t.username.as_ref().map(|v| v.span()),
        ),
        (
            CredentialKey::Password,
            t.password_file.as_ref().map(|v| v.span()),
        ),
        (
            CredentialKey::Token,
            t.token_file.as_ref().map(|v| v.span()),
        ),
        (
            CredentialKey::ApiToken,
            t.api_token_file.as_ref().map(|v| v.span()),
        ),
        (CredentialKey::Rcon, t.rcon.as_ref().map(|v| v.span())),
        (CredentialKey::Code, t.code_file.as_ref().map(|v| v.span())),
    ];
    let accepted = protocol.credential_keys();
    for (k, span) in &given {
        if let Some(span) = span {
            if !accepted.contains(k) {
                let takes = if accepted.is_empty() {
                    "takes no credentials".to_string()
                } else {
                    let names: Vec<&str> = accepted.iter().map(|k| k.as_str()).collect();
                    format!("takes only {}", names.join(", "))
                };
                return Err(ctx.err(
                    span.clone(),
                    &key(k.as_str()),
                    format!("protocol {protocol} {takes}"),
                ));
            }
        }
    }
    if let Some(required) = protocol.required_credential() {
        if !given.iter().any(|(k, s)| *k == required && s.is_some()) {
            return Err(ctx.err(
                t.name.span(),
                &key(required.as_str()),
                format!("protocol {protocol} needs {}", required.as_str()),
            ));
        }
    }
    if given.iter().all(|(_, s)| s.is_none()) {
        return Ok(None);
    }
    let read = |v: &Spanned<String>, k: &str| -> Result<Secret, ConfigError> {
        let path = dir.join(v.get_ref());
        let loaded = Secret::read(&path).map_err(|e| ctx.err(v.span(), &key(k), e))?;
        if loaded.readable_by_others {
            tracing::warn!(
                target_name = name,
                key = %key(k),
                file = %path.display(),
                "the secret file is readable by group or others; make it readable by the \
                 exporter's user only (chmod 600)"
            );
        }
        Ok(loaded.secret)
    };
    let username = match &t.username {
        Some(v) if v.get_ref().is_empty() || v.get_ref().chars().any(char::is_control) => {
            return Err(ctx.err(
                v.span(),
                &key("username"),
                "must be non-empty and free of control characters",
            ))
        }
        Some(v) => Some(v.get_ref().clone()),
        None => None,
    };
    let password = match &t.password_file {
        Some(v) => Some(read(v, "password_file")?),
        None => None,
    };
    let token = match &t.token_file {
        Some(v) => Some(read(v, "token_file")?),
        None => None,
    };
    let api_token = match &t.api_token_file {
        Some(v) => Some(read(v, "api_token_file")?),
        None => None,
    };
    let code = match &t.code_file {
        Some(v) => Some(read(v, "code_file")?),
        None => None,
    };
    let rcon = match t.rcon.as_deref().map(Spanned::get_ref) {
        Some(RawRcon {
            port,
            password_file,
        }) => {
            let port = match port {
                Some(p) => match u16::try_from(*p.get_ref()) {
                    Ok(n) if n > 0 => Some(n),
                    _ => {
                        let msg = format!("{} is out of range 1..=65535", p.get_ref());
                        return Err(ctx.err(p.span(), &key("rcon.port"), msg));
                    }
                },
                None => None,
            };
            let password = read(password_file, "rcon.password_file")?;
            Some(Rcon {
                port,
                password,
                console: Console::Source,
            })
        }
        None => None,
    };
    Ok(Some(Arc::new(Credentials {
        username,
        password,
        token,
        api_token,
        rcon,
        code,
        tls_pin: None,
    })))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Mutex;

    use crate::config::{load, parse, reload};
    use crate::target::Protocol;

    const SECRET: &str = "s3cr3t-planted";

    /// A fresh directory for one test's files.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gse-creds-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(path: &std::path::Path, text: &str, mode: u32) {
        std::fs::write(path, text).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = mode;
    }

    fn target(protocol: &str, extra: &str) -> String {
        format!(
            "[[target]]\nname = \"t\"\nprotocol = \"{protocol}\"\naddress = \"127.0.0.1\"\n{extra}\n"
        )
    }

    /// `rcon = { port, password_file }` on a Minecraft target: read, relative to the main
    /// file's directory, and carried by the target; `Debug` shows no secret.
    #[test]
    fn rcon_keys_are_read() {
        let dir = scratch("rcon");
        write(&dir.join("rcon.pw"), &format!("{SECRET}\n"), 0o600);
        let main = dir.join("exporter.toml");
        let rcon = "rcon = { port = 25575, password_file = \"rcon.pw\" }";
        write(&main, &target("minecraft", rcon), 0o600);
        let c = load(&main).unwrap();
        let creds = c.targets[0].credentials.as_deref().expect("credentials");
        let r = creds.rcon.as_ref().expect("rcon");
        assert_eq!((r.port, r.password.expose()), (Some(25575), SECRET));
        assert!(!format!("{:?}", c.targets[0]).contains(SECRET));
        // Without a port, the protocol's default is taken later.
        let abs = format!(
            "rcon = {{ password_file = \"{}\" }}",
            dir.join("rcon.pw").display()
        );
        let c = parse("x", &target("minecraft", &abs)).unwrap();
        let r = c.targets[0]
            .credentials
            .as_ref()
            .unwrap()
            .rcon
            .clone()
            .unwrap();
        assert_eq!(r.port, None);
        assert_eq!(Protocol::Minecraft.default_rcon_port(), 25575);
    }

    /// A key the protocol does not use is an error naming the key; so are a bad port, a
    /// missing or empty file and unknown keys inside `rcon`. No message holds the secret.
    #[test]
    fn refused_keys() {
        let dir = scratch("refused");
        let pw = dir.join("pw");
        write(&pw, SECRET, 0o600);
        let empty = dir.join("empty");
        write(&empty, "\n", 0o600);
        let p = pw.display();
        let cases = [
            (
                target("a2s", &format!("password_file = \"{p}\"")),
                "target \"t\".password_file: protocol a2s takes only rcon",
            ),
            (
                target("minecraft", &format!("token_file = \"{p}\"")),
                "target \"t\".token_file: protocol minecraft takes only rcon",
            ),
            (
                target("samp", "username = \"admin\""),
                "target \"t\".username: protocol samp takes no credentials",
            ),
            (
                target("quake3", &format!("api_token_file = \"{p}\"")),
                "api_token_file: protocol quake3 takes no credentials",
            ),
            (
                target(
                    "minecraft",
                    &format!("rcon = {{ port = 70000, password_file = \"{p}\" }}"),
                ),
                "target \"t\".rcon.port: 70000 is out of range 1..=65535",
            ),
            (
                target("minecraft", "rcon = { port = 1 }"),
                "missing field `password_file`",
            ),
            (
                target(
                    "minecraft",
                    &format!("rcon = {{ password = \"x\", password_file = \"{p}\" }}"),
                ),
                "unknown field `password`",
            ),
            (
                target(
                    "minecraft",
                    &format!("rcon = {{ password_file = \"{}\" }}", empty.display()),
                ),
                "target \"t\".rcon.password_file: ",
            ),
            (
                target(
                    "minecraft",
                    "rcon = { password_file = \"/nonexistent/pw\" }",
                ),
                "cannot read /nonexistent/pw",
            ),
        ];
        for (text, want) in cases {
            let e = parse("exporter.toml", &text).unwrap_err().0;
            assert!(e.contains(want), "{e}\nwanted: {want}");
            assert!(!e.contains(SECRET), "{e}");
        }
    }

    /// `[module.NAME]` never takes a credential key: a module is applied to any address a
    /// scraper sends.
    #[test]
    fn modules_refuse_credentials() {
        for key in [
            "password_file = \"/x\"",
            "token_file = \"/x\"",
            "api_token_file = \"/x\"",
            "username = \"admin\"",
            "rcon = { password_file = \"/x\" }",
        ] {
            let text = format!("[module.m]\nprotocol = \"minecraft\"\n{key}\n");
            let e = parse("exporter.toml", &text).unwrap_err().0;
            assert!(e.contains("unknown field"), "{key}: {e}");
        }
    }

    /// Reload reads the files again: a changed secret makes a changed target (its task is
    /// restarted with it); an unchanged one keeps the running copy.
    #[test]
    fn reload_rereads_files() {
        let dir = scratch("reload");
        let pw = dir.join("pw");
        write(&pw, "first", 0o600);
        let main = dir.join("exporter.toml");
        write(
            &main,
            &target("minecraft", "rcon = { password_file = \"pw\" }"),
            0o600,
        );
        let first = load(&main).unwrap();
        let same = reload(&main, &first.targets).unwrap();
        assert!(std::sync::Arc::ptr_eq(&same.targets[0], &first.targets[0]));
        write(&pw, "second\n", 0o600);
        let next = reload(&main, &first.targets).unwrap();
        assert_ne!(next.targets[0], first.targets[0]);
        let creds = next.targets[0].credentials.as_ref().unwrap();
        assert_eq!(creds.rcon.as_ref().unwrap().password.expose(), "second");
    }

    /// What the loader logs, captured.
    #[derive(Clone, Default)]
    struct Log(std::sync::Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A secret file group or others may read loads, with a warning naming the file and not
    /// its content; a private one loads silently.
    #[cfg(unix)]
    #[test]
    fn warns_on_readable_file() {
        let dir = scratch("warn");
        let open = dir.join("open.pw");
        write(&open, SECRET, 0o644);
        let private = dir.join("private.pw");
        write(&private, SECRET, 0o600);
        let log = Log::default();
        let sink = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            for f in [&private, &open] {
                let rcon = format!("rcon = {{ password_file = \"{}\" }}", f.display());
                parse("x", &target("minecraft", &rcon)).unwrap();
            }
        });
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text.matches("readable by group or others").count(),
            1,
            "{text}"
        );
        assert!(text.contains("open.pw"), "{text}");
        assert!(!text.contains("private.pw"), "{text}");
        assert!(!text.contains(SECRET), "{text}");
    }
}
