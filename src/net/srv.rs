//! Minecraft address resolution: the `_minecraft._tcp.NAME` SRV record, then A/AAAA.
//!
//! - An IP literal skips DNS; a name with an explicit port skips SRV.
//! - Otherwise the SRV record picks target and port (RFC 2782: lowest priority first, a
//!   weighted random choice within it). A lone target `.` means "decidedly no service here".
//! - A failed or empty SRV lookup falls back to `NAME:25565`, as the vanilla client does.
//! - The target is resolved with A/AAAA only, never SRV again: no loops.
//!
//! The selection is a pure function of the records and one random draw, tested below; the
//! resolver is built once per process, on first use.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use hickory_resolver::proto::rr::RData;
use hickory_resolver::TokioResolver;
use tokio::time::Instant;

use super::{resolve::resolve, NetError};
use crate::target::Address;

/// Share of the remaining time an SRV lookup may use, so a hanging DNS server still leaves
/// time for the A/AAAA fallback and the poll itself.
const SRV_SHARE: u32 = 2;

/// One SRV answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrvRecord {
    pub priority: u16,
    pub weight: u16,
    pub port: u16,
    /// Target host name, without the trailing dot (`.` alone stays `.`).
    pub target: String,
}

/// What the SRV answer says to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SrvChoice {
    /// No usable records: use the name itself with the default port.
    Fallback,
    /// The service is decidedly not available at this name (target `.`).
    NoService,
    /// Connect here.
    Target { host: String, port: u16 },
}

/// Picks one record, RFC 2782 style: the lowest priority wins; within it, a record is chosen
/// with probability proportional to its weight (weight-0 records are chosen only when all are
/// 0, or by a draw of exactly 0). `draw` is a uniform random number; only `draw % (sum + 1)`
/// matters, so tests pass exact values.
pub fn choose(records: &[SrvRecord], draw: u32) -> SrvChoice {
    if records.is_empty() {
        return SrvChoice::Fallback;
    }
    if records.len() == 1 && records[0].target == "." {
        return SrvChoice::NoService;
    }
    let usable: Vec<&SrvRecord> = records.iter().filter(|r| r.target != ".").collect();
    let Some(best) = usable.iter().map(|r| r.priority).min() else {
        return SrvChoice::NoService;
    };
    // RFC 2782: weight-0 records first, then the others, each with a running sum.
    let mut group: Vec<&SrvRecord> = usable.into_iter().filter(|r| r.priority == best).collect();
    group.sort_by_key(|r| r.weight != 0);
    let sum: u64 = group.iter().map(|r| u64::from(r.weight)).sum();
    let pick = u64::from(draw) % (sum + 1);
    let mut running = 0u64;
    let chosen = group
        .iter()
        .find(|r| {
            running += u64::from(r.weight);
            running >= pick
        })
        .unwrap_or(&group[0]);
    SrvChoice::Target {
        host: chosen.target.clone(),
        port: chosen.port,
    }
}

/// The SRV name vanilla clients look up for `host`.
pub fn srv_name(host: &str) -> String {
    format!("_minecraft._tcp.{}.", host.trim_end_matches('.'))
}

/// The process-wide resolver, built on first use from the system configuration. `None` when
/// the system has no usable configuration; SRV is then skipped.
fn shared_resolver() -> Option<&'static TokioResolver> {
    static RESOLVER: OnceLock<Option<TokioResolver>> = OnceLock::new();
    RESOLVER
        .get_or_init(|| match TokioResolver::builder_tokio().and_then(|b| b.build()) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!(error = %e, "no DNS resolver configuration: SRV lookups disabled");
                None
            }
        })
        .as_ref()
}

/// Looks up the SRV records for `host` (an error or no answer is an empty list).
pub async fn lookup_srv(resolver: &TokioResolver, host: &str, deadline: Instant) -> Vec<SrvRecord> {
    let name = srv_name(host);
    match tokio::time::timeout_at(deadline, resolver.srv_lookup(name.as_str())).await {
        Ok(Ok(lookup)) => lookup
            .answers()
            .iter()
            .filter_map(|rec| match &rec.data {
                RData::SRV(srv) => Some(SrvRecord {
                    priority: srv.priority,
                    weight: srv.weight,
                    port: srv.port,
                    target: normalize_target(&srv.target.to_utf8()),
                }),
                _ => None,
            })
            .collect(),
        Ok(Err(e)) => {
            tracing::debug!(name, error = %e, "SRV lookup failed, falling back to A/AAAA");
            Vec::new()
        }
        Err(_) => {
            tracing::debug!(name, "SRV lookup timed out, falling back to A/AAAA");
            Vec::new()
        }
    }
}

fn normalize_target(t: &str) -> String {
    if t == "." {
        return ".".into();
    }
    t.trim_end_matches('.').to_string()
}

/// Resolves a Minecraft address to the socket address to connect to, with the shared resolver.
/// An address that cannot use SRV (a port given, an IP literal) never touches the resolver,
/// so a configuration without names never builds one.
pub async fn resolve_minecraft(
    address: &Address,
    default_port: u16,
    deadline: Instant,
) -> Result<SocketAddr, NetError> {
    if address.port.is_some() || address.ip().is_some() {
        return resolve(address, default_port, deadline).await;
    }
    resolve_minecraft_with(shared_resolver(), address, default_port, deadline).await
}

/// As [`resolve_minecraft`], with a given resolver (tests point one at a fake DNS server).
pub async fn resolve_minecraft_with(
    resolver: Option<&TokioResolver>,
    address: &Address,
    default_port: u16,
    deadline: Instant,
) -> Result<SocketAddr, NetError> {
    let resolver = match resolver {
        Some(r) if address.port.is_none() && address.ip().is_none() => r,
        _ => return resolve(address, default_port, deadline).await,
    };
    let remaining = deadline.saturating_duration_since(Instant::now());
    let srv_deadline = Instant::now() + remaining / SRV_SHARE;
    let records = lookup_srv(resolver, &address.host, srv_deadline).await;
    match choose(&records, random_draw()) {
        SrvChoice::Fallback => resolve(address, default_port, deadline).await,
        SrvChoice::NoService => Err(NetError::Dns {
            name: srv_name(&address.host),
            detail: "SRV target \".\": no Minecraft service at this name".into(),
        }),
        // Resolved with A/AAAA only (`resolve`), never SRV again: an SRV chain cannot loop.
        SrvChoice::Target { host, port } => {
            let target = Address::new(host, Some(port));
            resolve(&target, default_port, deadline).await
        }
    }
}

/// A draw for the weighted choice. Not cryptographic: it only spreads load like clients do.
fn random_draw() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_nanos(),
    );
    h.finish() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(priority: u16, weight: u16, port: u16, target: &str) -> SrvRecord {
        SrvRecord {
            priority,
            weight,
            port,
            target: target.into(),
        }
    }

    fn target(host: &str, port: u16) -> SrvChoice {
        SrvChoice::Target {
            host: host.into(),
            port,
        }
    }

    /// No records means "use the name and the default port".
    #[test]
    fn empty_falls_back() {
        assert_eq!(choose(&[], 7), SrvChoice::Fallback);
    }

    /// A single `.` target means no service.
    #[test]
    fn dot_means_no_service() {
        assert_eq!(choose(&[rec(0, 0, 0, ".")], 0), SrvChoice::NoService);
    }

    /// The lowest priority wins whatever the weights.
    #[test]
    fn priority_first() {
        let rs = [
            rec(20, 100, 1, "b"),
            rec(10, 1, 2, "a"),
            rec(30, 100, 3, "c"),
        ];
        for draw in 0..50 {
            assert_eq!(choose(&rs, draw), target("a", 2));
        }
    }

    /// Within a priority the draw selects by running weight sum: weights 1 and 3 split 0..=4.
    #[test]
    fn weighted_within_priority() {
        let rs = [
            rec(5, 1, 1, "light"),
            rec(5, 3, 2, "heavy"),
            rec(9, 50, 3, "later"),
        ];
        // sum = 4, pick = draw % 5: 0,1 -> light (running 1), 2,3,4 -> heavy (running 4).
        let picks: Vec<SrvChoice> = (0..5).map(|d| choose(&rs, d)).collect();
        assert_eq!(
            picks,
            vec![
                target("light", 1),
                target("light", 1),
                target("heavy", 2),
                target("heavy", 2),
                target("heavy", 2)
            ]
        );
    }

    /// Weight-0 records are taken only by a zero pick, and when every weight is 0.
    #[test]
    fn zero_weights() {
        let rs = [rec(1, 5, 1, "w"), rec(1, 0, 2, "zero")];
        assert_eq!(choose(&rs, 0), target("zero", 2));
        assert_eq!(choose(&rs, 3), target("w", 1));
        let all_zero = [rec(1, 0, 1, "a"), rec(1, 0, 2, "b")];
        assert_eq!(choose(&all_zero, 12345), target("a", 1));
    }

    /// A `.` among real targets is ignored.
    #[test]
    fn dot_among_others_ignored() {
        let rs = [rec(0, 0, 0, "."), rec(1, 1, 25566, "mc.example.org")];
        assert_eq!(choose(&rs, 1), target("mc.example.org", 25566));
    }

    /// The SRV name carries the service and protocol labels and is fully qualified.
    #[test]
    fn srv_names() {
        assert_eq!(srv_name("example.org"), "_minecraft._tcp.example.org.");
        assert_eq!(srv_name("example.org."), "_minecraft._tcp.example.org.");
        assert_eq!(normalize_target("mc.example.org."), "mc.example.org");
        assert_eq!(normalize_target("."), ".");
    }

    /// A resolver that asks only the fake name server at `ns` (loopback, port 0).
    fn resolver_for(ns: std::net::SocketAddr) -> TokioResolver {
        use hickory_resolver::config::{
            ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts,
        };
        use hickory_resolver::net::runtime::TokioRuntimeProvider;
        let mut conn = ConnectionConfig::udp();
        conn.port = ns.port();
        let config = ResolverConfig::from_parts(
            None,
            vec![],
            vec![NameServerConfig::new(ns.ip(), true, vec![conn])],
        );
        let mut opts = ResolverOpts::default();
        opts.timeout = Duration::from_millis(300);
        opts.attempts = 1;
        TokioResolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(opts)
            .build()
            .unwrap()
    }

    /// A fake DNS server on 127.0.0.1 answering every SRV question with `answers`
    /// (priority, weight, port, target) and everything else with no records.
    async fn fake_dns(answers: Vec<(u16, u16, u16, &'static str)>) -> std::net::SocketAddr {
        use hickory_resolver::proto::op::{Message, OpCode};
        use hickory_resolver::proto::rr::{rdata::SRV, Name, Record, RecordType};
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let addr = socket.local_addr().unwrap();
        tokio::spawn(async move {
            let mut buf = [0u8; 512];
            while let Ok((n, from)) = socket.recv_from(&mut buf).await {
                let Ok(query) = Message::from_vec(&buf[..n]) else {
                    continue;
                };
                let mut reply = Message::response(query.metadata.id, OpCode::Query);
                reply.metadata.recursion_desired = query.metadata.recursion_desired;
                reply.metadata.recursion_available = true;
                for q in &query.queries {
                    reply.add_query(q.clone());
                    if q.query_type() != RecordType::SRV {
                        continue;
                    }
                    for (priority, weight, port, target) in &answers {
                        let target = Name::from_ascii(target).unwrap();
                        let srv = SRV::new(*priority, *weight, *port, target);
                        reply.add_answer(Record::from_rdata(q.name().clone(), 60, RData::SRV(srv)));
                    }
                }
                let _ = socket.send_to(&reply.to_vec().unwrap(), from).await;
            }
        });
        addr
    }

    /// The SRV record's target and port are used; the target is resolved with A/AAAA.
    #[tokio::test]
    async fn srv_record_followed() {
        let ns = fake_dns(vec![(10, 5, 25599, "localhost."), (20, 5, 1, "localhost.")]).await;
        let resolver = resolver_for(ns);
        let deadline = Instant::now() + Duration::from_secs(2);
        let a = Address::parse("mc.example.test").unwrap();
        let got = resolve_minecraft_with(Some(&resolver), &a, 25565, deadline)
            .await
            .unwrap();
        assert_eq!(got, "127.0.0.1:25599".parse().unwrap());
    }

    /// An empty SRV answer falls back to the name itself on the default port.
    #[tokio::test]
    async fn srv_empty_falls_back() {
        let ns = fake_dns(vec![]).await;
        let resolver = resolver_for(ns);
        let deadline = Instant::now() + Duration::from_secs(2);
        let a = Address::parse("localhost").unwrap();
        let got = resolve_minecraft_with(Some(&resolver), &a, 25565, deadline)
            .await
            .unwrap();
        assert_eq!(got, "127.0.0.1:25565".parse().unwrap());
    }

    /// A lone `.` target is a DNS failure: the service is decidedly not there.
    #[tokio::test]
    async fn srv_dot_is_dns_failure() {
        let ns = fake_dns(vec![(0, 0, 0, ".")]).await;
        let resolver = resolver_for(ns);
        let deadline = Instant::now() + Duration::from_secs(2);
        let a = Address::parse("mc.example.test").unwrap();
        let err = resolve_minecraft_with(Some(&resolver), &a, 25565, deadline)
            .await
            .unwrap_err();
        assert!(matches!(err, NetError::Dns { .. }), "{err:?}");
    }

    /// An IP literal and an explicit port never consult DNS (no resolver is even given).
    #[tokio::test]
    async fn literals_and_ports_skip_srv() {
        let deadline = Instant::now() + Duration::from_secs(1);
        let a = Address::parse("127.0.0.1").unwrap();
        assert_eq!(
            resolve_minecraft_with(None, &a, 25565, deadline)
                .await
                .unwrap(),
            "127.0.0.1:25565".parse().unwrap()
        );
        let a = Address::parse("[::1]:25570").unwrap();
        assert_eq!(
            resolve_minecraft_with(None, &a, 25565, deadline)
                .await
                .unwrap(),
            "[::1]:25570".parse().unwrap()
        );
    }
}
