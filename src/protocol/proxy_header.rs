//! The PROXY protocol header (HAProxy's `proxy-protocol.txt`, versions 1 and 2): what a
//! client behind a proxy sends first on a TCP connection, before the protocol's own bytes, so
//! that a server configured to expect it (HAProxy `accept-proxy`, Velocity and BungeeCord
//! with proxy protocol on) accepts the connection at all. Encoders only: the exporter sends a
//! header and never receives one. Why each version sends what it does: docs/proxy-protocol.md.
//!
//! # Format
//! ```text
//! v1 (text, at most 107 bytes):
//!   "PROXY TCP4 192.0.2.1 198.51.100.7 40000 25565\r\n"
//!   "PROXY TCP6 2001:db8::1 2001:db8::2 40000 25565\r\n"
//!   fields separated by one space: family, source address, destination address,
//!   source port, destination port (decimal, no leading zeros)
//!
//! v2 (binary, 16 bytes + the address block; integers big-endian):
//!   0..12   signature 0d 0a 0d 0a 00 0d 0a 51 55 49 54 0a ("\r\n\r\n\0\r\nQUIT\n")
//!   12      version (high nibble, 2) | command (low nibble: 0 LOCAL, 1 PROXY)
//!   13      address family (high nibble: 0 UNSPEC, 1 INET, 2 INET6)
//!           | transport (low nibble: 0 UNSPEC, 1 STREAM)
//!   14..16  length of what follows (u16)
//!   16..    INET:  source address (4) | destination address (4) | source port | dest. port
//!           INET6: source address (16) | destination address (16) | source port | dest. port
//!           LOCAL: nothing (family UNSPEC, length 0)
//! ```

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use std::fmt;

/// The PROXY protocol version a TCP target's server (or the proxy in front of it) expects
/// before the query's first byte (`proxy_protocol = "v1" | "v2"`). What each sends:
/// `protocol::proxy_header` and docs/proxy-protocol.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyProtocol {
    /// The text header: `PROXY TCP4|TCP6 <our address> <server address> <ports>\r\n`.
    V1,
    /// The binary header with the LOCAL command: "a health check, use the real addresses".
    V2,
}

impl ProxyProtocol {
    pub const ALL: [ProxyProtocol; 2] = [ProxyProtocol::V1, ProxyProtocol::V2];

    /// The id in the config and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ProxyProtocol::V1 => "v1",
            ProxyProtocol::V2 => "v2",
        }
    }

    pub fn from_name(name: &str) -> Option<ProxyProtocol> {
        ProxyProtocol::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl fmt::Display for ProxyProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The first twelve bytes of every v2 header; chosen by the spec so that no v1 header and no
/// common protocol starts with them.
pub const SIGNATURE: [u8; 12] = [
    0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a,
];

/// The longest v1 header the spec allows (receivers read at most this much looking for CRLF):
/// `PROXY UNKNOWN` with two full-length IPv6 addresses and two 5-digit ports.
pub const V1_MAX_LEN: usize = 107;

/// The fixed part of a v2 header: signature, version and command, family, length.
pub const V2_FIXED_LEN: usize = 16;

/// v2's version nibble, in the high half of byte 12.
const V2_VERSION: u8 = 0x20;
/// v2 commands, in the low half of byte 12.
const CMD_LOCAL: u8 = 0x0;
const CMD_PROXY: u8 = 0x1;
/// v2 family and transport (byte 13): unspecified, TCP over IPv4, TCP over IPv6.
const FAM_UNSPEC: u8 = 0x00;
const FAM_TCP4: u8 = 0x11;
const FAM_TCP6: u8 = 0x21;

/// What a v2 header says about the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// "Made by the proxy itself (a health check): use the connection's real addresses."
    /// No address block.
    Local,
    /// "Relayed for this client": the addresses the receiver should take as the
    /// connection's.
    Proxy {
        source: SocketAddr,
        destination: SocketAddr,
    },
}

/// The header the exporter sends on a connection from `local` to `peer` (the TCP socket's
/// own addresses): v1 names those two real endpoints, v2 is the LOCAL command. Both tell
/// the receiver the same thing, "this connection is what it looks like" (v1 has no LOCAL;
/// the spec advises against `UNKNOWN` where the connection should be accepted).
pub fn encode(version: ProxyProtocol, local: SocketAddr, peer: SocketAddr, out: &mut Vec<u8>) {
    match version {
        ProxyProtocol::V1 => encode_v1(local, peer, out),
        ProxyProtocol::V2 => encode_v2(Command::Local, out),
    }
}

/// Appends a v1 header. Both addresses of one line are of one family; a mixed pair (which a
/// connected socket never has) is written as TCP6 with the IPv4 one mapped.
pub fn encode_v1(source: SocketAddr, destination: SocketAddr, out: &mut Vec<u8>) {
    use std::fmt::Write;
    let mut line = String::with_capacity(V1_MAX_LEN);
    // Writing to a String cannot fail.
    let _ = match same_family(source.ip(), destination.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => write!(line, "PROXY TCP4 {s} {d}"),
        (s, d) => write!(line, "PROXY TCP6 {} {}", v6(s), v6(d)),
    };
    let _ = write!(line, " {} {}\r\n", source.port(), destination.port());
    out.extend_from_slice(line.as_bytes());
}

/// Appends a v2 header.
pub fn encode_v2(command: Command, out: &mut Vec<u8>) {
    out.extend_from_slice(&SIGNATURE);
    let Command::Proxy {
        source,
        destination,
    } = command
    else {
        out.extend_from_slice(&[V2_VERSION | CMD_LOCAL, FAM_UNSPEC, 0, 0]);
        return;
    };
    let (src, dst) = same_family(source.ip(), destination.ip());
    let (family, block): (u8, u16) = match (src, dst) {
        (IpAddr::V4(_), IpAddr::V4(_)) => (FAM_TCP4, 4 + 4 + 2 + 2),
        _ => (FAM_TCP6, 16 + 16 + 2 + 2),
    };
    out.extend_from_slice(&[V2_VERSION | CMD_PROXY, family]);
    out.extend_from_slice(&block.to_be_bytes());
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            out.extend_from_slice(&s.octets());
            out.extend_from_slice(&d.octets());
        }
        (s, d) => {
            out.extend_from_slice(&v6(s).octets());
            out.extend_from_slice(&v6(d).octets());
        }
    }
    out.extend_from_slice(&source.port().to_be_bytes());
    out.extend_from_slice(&destination.port().to_be_bytes());
}

/// The pair as is when both are of one family; else both as IPv6 (IPv4 mapped).
fn same_family(a: IpAddr, b: IpAddr) -> (IpAddr, IpAddr) {
    match (a, b) {
        (IpAddr::V4(_), IpAddr::V4(_)) | (IpAddr::V6(_), IpAddr::V6(_)) => (a, b),
        _ => (IpAddr::V6(v6(a)), IpAddr::V6(v6(b))),
    }
}

fn v6(ip: IpAddr) -> Ipv6Addr {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    /// v2 LOCAL, byte for byte: the signature, version 2 | LOCAL, UNSPEC, length 0. Nothing
    /// follows.
    #[test]
    fn v2_local_bytes() {
        let mut out = Vec::new();
        encode_v2(Command::Local, &mut out);
        assert_eq!(
            out,
            [
                0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54,
                0x0a, // signature
                0x20, // version 2, command LOCAL
                0x00, // family UNSPEC, transport UNSPEC
                0x00, 0x00, // no address block
            ]
        );
        assert_eq!(&out[..12], b"\r\n\r\n\0\r\nQUIT\n");
        // What the exporter sends for v2, whatever the addresses.
        let mut sent = Vec::new();
        encode(
            ProxyProtocol::V2,
            addr("127.0.0.1:40000"),
            addr("127.0.0.1:25565"),
            &mut sent,
        );
        assert_eq!(sent, out);
    }

    /// v2 PROXY over IPv4: TCP4 (0x11), 12 bytes of addresses and ports.
    #[test]
    fn v2_proxy_tcp4_bytes() {
        let mut out = Vec::new();
        encode_v2(
            Command::Proxy {
                source: addr("192.0.2.1:40000"),
                destination: addr("198.51.100.7:25565"),
            },
            &mut out,
        );
        let mut want = SIGNATURE.to_vec();
        want.extend_from_slice(&[
            0x21, // version 2, command PROXY
            0x11, // AF_INET, STREAM
            0x00, 0x0c, // 12 bytes follow
            192, 0, 2, 1, // source address
            198, 51, 100, 7, // destination address
            0x9c, 0x40, // source port 40000
            0x63, 0xdd, // destination port 25565
        ]);
        assert_eq!(out, want);
    }

    /// v2 PROXY over IPv6: TCP6 (0x21), 36 bytes of addresses and ports.
    #[test]
    fn v2_proxy_tcp6_bytes() {
        let mut out = Vec::new();
        encode_v2(
            Command::Proxy {
                source: addr("[2001:db8::1]:1"),
                destination: addr("[::1]:25565"),
            },
            &mut out,
        );
        let mut want = SIGNATURE.to_vec();
        want.extend_from_slice(&[0x21, 0x21, 0x00, 0x24]);
        want.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        want.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        want.extend_from_slice(&[0x00, 0x01, 0x63, 0xdd]);
        assert_eq!(out, want);
    }

    /// v1 lines as the spec's examples write them: one space between fields, CRLF at the end.
    #[test]
    fn v1_lines() {
        let line = |s: &str, d: &str| {
            let mut out = Vec::new();
            encode_v1(addr(s), addr(d), &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            line("192.0.2.1:40000", "198.51.100.7:25565"),
            "PROXY TCP4 192.0.2.1 198.51.100.7 40000 25565\r\n"
        );
        assert_eq!(
            line("[2001:db8::1]:40000", "[::1]:25565"),
            "PROXY TCP6 2001:db8::1 ::1 40000 25565\r\n"
        );
        // A mixed pair (never from one socket) stays a valid line: TCP6, IPv4 mapped.
        assert_eq!(
            line("127.0.0.1:1", "[::1]:2"),
            "PROXY TCP6 ::ffff:127.0.0.1 ::1 1 2\r\n"
        );
        // What the exporter sends for v1: its own address first, the server's second.
        let mut sent = Vec::new();
        encode(
            ProxyProtocol::V1,
            addr("127.0.0.1:40000"),
            addr("127.0.0.1:25565"),
            &mut sent,
        );
        assert_eq!(sent, b"PROXY TCP4 127.0.0.1 127.0.0.1 40000 25565\r\n");
    }

    /// The longest line we can write fits the spec's limit (107 is `PROXY UNKNOWN` with two
    /// full IPv6 addresses; `TCP6` is three characters shorter).
    #[test]
    fn v1_longest_fits() {
        let long = "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535";
        let mut out = Vec::new();
        encode_v1(addr(long), addr(long), &mut out);
        assert_eq!(out.len(), V1_MAX_LEN - 3);
    }

    fn any_addr() -> impl Strategy<Value = SocketAddr> {
        prop_oneof![
            (any::<[u8; 4]>(), any::<u16>()).prop_map(|(ip, p)| SocketAddr::from((ip, p))),
            (any::<[u8; 16]>(), any::<u16>()).prop_map(|(ip, p)| SocketAddr::from((ip, p))),
        ]
    }

    proptest! {
        /// v2: the length field counts exactly the bytes after the fixed part, the family
        /// byte says how they read, and the addresses and ports come back out of them.
        #[test]
        fn v2_length_matches(src in any_addr(), dst in any_addr(), local in any::<bool>()) {
            let command = if local {
                Command::Local
            } else {
                Command::Proxy { source: src, destination: dst }
            };
            let mut out = vec![0xaa]; // encoders append
            encode_v2(command, &mut out);
            let h = &out[1..];
            prop_assert_eq!(&h[..12], &SIGNATURE[..]);
            let len = usize::from(u16::from_be_bytes([h[14], h[15]]));
            prop_assert_eq!(len, h.len() - V2_FIXED_LEN);
            let block = &h[V2_FIXED_LEN..];
            let port = |at: usize| u16::from_be_bytes([block[at], block[at + 1]]);
            match (h[12], h[13]) {
                (0x20, 0x00) => prop_assert!(local && block.is_empty()),
                (0x21, 0x11) => {
                    prop_assert_eq!(block.len(), 12);
                    let ip = |at: usize| IpAddr::from(<[u8; 4]>::try_from(&block[at..at + 4]).unwrap());
                    prop_assert_eq!(SocketAddr::new(ip(0), port(8)), src);
                    prop_assert_eq!(SocketAddr::new(ip(4), port(10)), dst);
                }
                (0x21, 0x21) => {
                    prop_assert_eq!(block.len(), 36);
                    let ip = |at: usize| Ipv6Addr::from(<[u8; 16]>::try_from(&block[at..at + 16]).unwrap());
                    prop_assert_eq!((ip(0), port(32)), (v6(src.ip()), src.port()));
                    prop_assert_eq!((ip(16), port(34)), (v6(dst.ip()), dst.port()));
                }
                other => prop_assert!(false, "version/command, family {:02x?}", other),
            }
        }

        /// v1: one line within the spec's limit, six fields that parse back to the pair.
        #[test]
        fn v1_parses_back(src in any_addr(), dst in any_addr()) {
            let mut out = Vec::new();
            encode_v1(src, dst, &mut out);
            prop_assert!(out.len() <= V1_MAX_LEN);
            let text = std::str::from_utf8(&out).unwrap();
            let line = text.strip_suffix("\r\n").unwrap();
            prop_assert!(!line.contains('\r') && !line.contains('\n'));
            let f: Vec<&str> = line.split(' ').collect();
            prop_assert_eq!(f.len(), 6);
            prop_assert_eq!(f[0], "PROXY");
            let (s, d) = same_family(src.ip(), dst.ip());
            prop_assert_eq!(f[1], if s.is_ipv4() { "TCP4" } else { "TCP6" });
            prop_assert_eq!(f[2].parse::<IpAddr>().unwrap(), s);
            prop_assert_eq!(f[3].parse::<IpAddr>().unwrap(), d);
            prop_assert_eq!(f[4], src.port().to_string());
            prop_assert_eq!(f[5], dst.port().to_string());
        }
    }
}
