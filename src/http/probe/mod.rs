//! `/probe`: one fresh poll of one target, blackbox_exporter style.
//!
//! The flow, in order: refuse ambiguous parameters; find the configured target (reusing its
//! pre-encoded labels when the running state has them) or build an ad-hoc one from
//! `protocol` and `address`, or from `module` and `target` (blackbox_exporter's own form:
//! `target` is then an address, and `module` a `[module.NAME]`, a protocol id or a game id,
//! see [`crate::config::Module`]); for an ad-hoc target, resolve the name once (A/AAAA, no
//! Minecraft SRV) and allow the resulting IP only if it lies in
//! `exporter.probe_allowed_networks`, then poll that checked IP, so that a second lookup
//! cannot swap in an address outside the allowed networks; poll through the scheduler's
//! prober and permits; hand back the result as one [`Entry`]. The shared state is left alone
//! and no counters move.
//!
//! A name that does not resolve is a result, not a refusal: `up 0` with the failure, since no
//! traffic reached any server. HTTP only maps [`Refused`] to a status code and renders the
//! entry.
//!
//! With `debug=true` the same probe runs with a transcript ([`debug`]), under the same
//! lookups, allow-list and refusals.

pub mod debug;
mod hexdump;
mod scrub;
mod text;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::config::Module;
use crate::daemon::Daemon;
use crate::query::Observer;
use crate::query::{Request, Session};
use crate::scheduler::poll_once_observed;
use crate::state::{Entry, TargetMeta};
use crate::status::Failure;
use crate::target::{Address, Protocol};

/// The parameters `/probe` reads; each may be given at most once.
const PARAMETERS: [&str; 5] = ["target", "protocol", "address", "module", "debug"];

/// Why a probe was not run. The message is what the client is told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("parameter {0:?} given more than once")]
    Repeated(&'static str),
    #[error("want ?target=NAME, ?protocol=P&address=A or ?module=M&target=HOST:PORT")]
    Usage,
    #[error("unknown target {0:?}")]
    UnknownTarget(String),
    /// A configured target that another replica polls (see [`crate::shard`]).
    #[error("target {name:?} belongs to shard {owner}, not this replica (shard {this})")]
    OtherShard {
        name: String,
        owner: crate::shard::Shard,
        this: crate::shard::Shard,
    },
    #[error("debug must be true or false, not {0:?}")]
    BadDebug(String),
    #[error("unknown protocol {0:?}")]
    UnknownProtocol(String),
    #[error(
        "unknown module {0:?}: not a [module.{0}] section of the configuration, a protocol id or a game id"
    )]
    UnknownModule(String),
    #[error("bad address {0:?}: {1}")]
    BadAddress(String, crate::target::AddressError),
    /// Ad-hoc probes never carry credentials, and this protocol answers nothing without.
    #[error(
        "protocol {protocol} answers only after a login ({key}), and ad-hoc probes carry no \
         credentials: configure a target and probe it with ?target=NAME"
    )]
    NeedsCredentials {
        protocol: Protocol,
        key: &'static str,
    },
    #[error("ad-hoc probes are disabled (exporter.probe_allowed_networks is empty)")]
    AdHocDisabled,
    #[error("{address} resolves to {ip}, outside exporter.probe_allowed_networks")]
    OutsideAllowed {
        address: String,
        ip: std::net::IpAddr,
    },
}

/// The class of a refusal, which HTTP turns into a status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    BadRequest,
    NotFound,
    Forbidden,
}

impl Refused {
    pub fn kind(&self) -> Kind {
        match self {
            Refused::UnknownTarget(_) | Refused::OtherShard { .. } => Kind::NotFound,
            Refused::AdHocDisabled | Refused::OutsideAllowed { .. } => Kind::Forbidden,
            Refused::Repeated(_)
            | Refused::Usage
            | Refused::BadDebug(_)
            | Refused::UnknownProtocol(_)
            | Refused::UnknownModule(_)
            | Refused::NeedsCredentials { .. }
            | Refused::BadAddress(..) => Kind::BadRequest,
        }
    }
}

/// Runs one probe for the decoded query parameters `q`.
pub async fn probe(daemon: &Daemon, q: &[(String, String)]) -> Result<Entry, Refused> {
    probe_with(daemon, q, None).await
}

/// Like [`probe`], telling `transcript` (if any) what the probe resolves and everything the
/// poll does on the wire.
async fn probe_with(
    daemon: &Daemon,
    q: &[(String, String)],
    mut transcript: Option<&mut debug::Transcript>,
) -> Result<Entry, Refused> {
    if let Some(key) = repeated(q) {
        return Err(Refused::Repeated(key));
    }
    let params = (get(q, "target"), get(q, "protocol"), get(q, "address"));
    let (module, address) = match (params, get(q, "module")) {
        ((Some(name), None, None), None) => (None, name),
        ((None, Some(p), Some(a)), None) => {
            let protocol =
                Protocol::from_name(p).ok_or_else(|| Refused::UnknownProtocol(p.to_string()))?;
            let config = daemon.config();
            (Some(Module::defaults(&config.exporter, protocol, None)), a)
        }
        ((Some(a), None, None), Some(m)) => {
            (Some(module(daemon, m, transcript.as_deref_mut())?), a)
        }
        _ => return Err(Refused::Usage),
    };
    let meta = match module {
        None => configured(daemon, address)?,
        Some(module) => match ad_hoc(daemon, module, address, transcript.as_deref_mut()).await? {
            AdHoc::Poll(meta) => meta,
            AdHoc::Unresolved(entry) => return Ok(entry),
        },
    };
    let req = Request::from(&*meta.target);
    let prober = daemon.prober();
    let permits = daemon.permits();
    let observer = transcript.map(|t| {
        t.note(tokio::time::Instant::now(), "poll starts");
        t as &mut dyn Observer
    });
    let (result, took) =
        poll_once_observed(&*prober, &permits, &req, &mut Session::default(), observer).await;
    let mut entry = Entry::new(meta);
    entry.record(result, took, SystemTime::now());
    Ok(entry)
}

/// A configured target, with the running task's labels when its target is unchanged.
fn configured(daemon: &Daemon, name: &str) -> Result<Arc<TargetMeta>, Refused> {
    let config = daemon.config();
    let Some(t) = config.targets.iter().find(|t| t.name == name) else {
        return Err(match daemon.owner_elsewhere(name) {
            Some(owner) => Refused::OtherShard {
                name: name.to_string(),
                owner,
                this: daemon.shard(),
            },
            None => Refused::UnknownTarget(name.to_string()),
        });
    };
    Ok(match daemon.state().get(name) {
        Some(e) if e.meta.target == *t => e.meta.clone(),
        _ => Arc::new(TargetMeta::new(t.clone())),
    })
}

/// What an allowed ad-hoc request leads to.
enum AdHoc {
    /// Poll this target, aimed at the checked IP.
    Poll(Arc<TargetMeta>),
    /// The name did not resolve: this is already the result.
    Unresolved(Entry),
}

/// What `module=NAME` means ([`crate::config::Config::probe_module`]), told to the transcript.
fn module(
    daemon: &Daemon,
    name: &str,
    transcript: Option<&mut debug::Transcript>,
) -> Result<Module, Refused> {
    let config = daemon.config();
    let module = config
        .probe_module(name)
        .ok_or_else(|| Refused::UnknownModule(name.to_string()))?;
    if let Some(t) = transcript {
        let from = if config.modules.contains_key(name) {
            format!("the configuration's [module.{name}]")
        } else if module.game.is_some() {
            "a game preset".to_string()
        } else {
            "a protocol id".to_string()
        };
        let game = module
            .game
            .map_or(String::new(), |g| format!(", game {}", g.id));
        let what = format!(
            "module {name:?} is {from}: protocol {}{game}",
            module.protocol
        );
        t.note(tokio::time::Instant::now(), &what);
    }
    Ok(module)
}

/// An ad-hoc probe of the address `a` with `module`'s settings (the `[exporter]` defaults
/// for `protocol=P`).
async fn ad_hoc(
    daemon: &Daemon,
    module: Module,
    a: &str,
    transcript: Option<&mut debug::Transcript>,
) -> Result<AdHoc, Refused> {
    if let Some(key) = module.protocol.required_credential() {
        return Err(Refused::NeedsCredentials {
            protocol: module.protocol,
            key: key.as_str(),
        });
    }
    let address = Address::parse(a).map_err(|e| Refused::BadAddress(a.to_string(), e))?;
    let config = daemon.config();
    let allowed = &config.exporter.probe_allowed_networks;
    if allowed.is_empty() {
        return Err(Refused::AdHocDisabled);
    }
    let protocol = module.protocol;
    let mut target = module.target(&config.exporter, a, address);
    let deadline = tokio::time::Instant::now() + target.timeout;
    let ip = match crate::query::resolve(&target.address, protocol.default_port(), deadline).await {
        Ok(ip) => ip,
        Err(e) => {
            if let Some(t) = transcript {
                let now = tokio::time::Instant::now();
                t.note(now, &format!("resolving {a:?} failed: {e}"));
            }
            let mut entry = Entry::new(Arc::new(TargetMeta::new(target)));
            let failure = Failure::from(crate::query::Error::from(e));
            entry.record(Err(failure), Duration::ZERO, SystemTime::now());
            return Ok(AdHoc::Unresolved(entry));
        }
    };
    let Some(network) = allowed.iter().find(|n| n.contains(ip.ip())) else {
        return Err(Refused::OutsideAllowed {
            address: a.to_string(),
            ip: ip.ip(),
        });
    };
    if let Some(t) = transcript {
        let now = tokio::time::Instant::now();
        t.note(
            now,
            &format!("resolved {a:?} to {ip}, inside allowed network {network}"),
        );
    }
    target.address = Address::new(ip.ip().to_string(), Some(ip.port()));
    Ok(AdHoc::Poll(Arc::new(TargetMeta::new(target))))
}

/// The last value of a parameter.
fn get<'a>(q: &'a [(String, String)], key: &str) -> Option<&'a str> {
    q.iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A /probe parameter given twice: a proxy or allow-list in front of the exporter may check
/// one copy while we would use the other, so ambiguity is refused rather than resolved.
fn repeated(q: &[(String, String)]) -> Option<&'static str> {
    PARAMETERS
        .into_iter()
        .find(|key| q.iter().filter(|(k, _)| k == key).count() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::parse_query;

    /// A /probe parameter given twice is found; distinct ones are fine.
    #[test]
    fn repeated_parameters() {
        let q = parse_query("target=a&x=1&x=2").unwrap();
        assert_eq!(repeated(&q), None);
        let q = parse_query("target=a&target=b").unwrap();
        assert_eq!(repeated(&q), Some("target"));
        let q = parse_query("protocol=samp&address=10.0.0.1&address=127.0.0.1").unwrap();
        assert_eq!(repeated(&q), Some("address"));
    }
}
