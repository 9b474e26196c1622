use std::fmt;
use std::net::IpAddr;

/// A target address as an operator writes it: `host`, `host:port`, `1.2.3.4:27015`,
/// `[2001:db8::1]:27015` or a bare IPv6 literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address {
    pub host: String,
    pub port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("address is empty")]
    Empty,
    #[error("invalid port {0:?}")]
    Port(String),
    #[error("invalid host {0:?}")]
    Host(String),
}

impl Address {
    pub fn parse(s: &str) -> Result<Address, AddressError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(AddressError::Empty);
        }
        if let Some(rest) = s.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| AddressError::Host(s.to_string()))?;
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(AddressError::Host(host.to_string()));
            }
            let port = match after {
                "" => None,
                p => Some(parse_port(p.strip_prefix(':').unwrap_or(p))?),
            };
            return Ok(Address {
                host: host.to_string(),
                port,
            });
        }
        if s.parse::<std::net::Ipv6Addr>().is_ok() {
            return Ok(Address {
                host: s.to_string(),
                port: None,
            });
        }
        let (host, port) = match s.rsplit_once(':') {
            Some((h, p)) => (h, Some(parse_port(p)?)),
            None => (s, None),
        };
        let valid = !host.is_empty()
            && host.len() <= 253
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        if !valid {
            return Err(AddressError::Host(host.to_string()));
        }
        Ok(Address {
            host: host.to_string(),
            port,
        })
    }

    /// The host as an IP literal, when it is one (no resolution needed).
    pub fn ip(&self) -> Option<IpAddr> {
        self.host.parse().ok()
    }
}

fn parse_port(p: &str) -> Result<u16, AddressError> {
    match p.parse::<u16>() {
        Ok(0) | Err(_) => Err(AddressError::Port(p.to_string())),
        Ok(n) => Ok(n),
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v6 = self.host.contains(':');
        match (self.port, v6) {
            (Some(p), true) => write!(f, "[{}]:{p}", self.host),
            (Some(p), false) => write!(f, "{}:{p}", self.host),
            (None, _) => f.write_str(&self.host),
        }
    }
}

impl std::str::FromStr for Address {
    type Err = AddressError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Address::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form an operator may write parses, and prints back the same way.
    #[test]
    fn forms() {
        for (text, host, port) in [
            ("mc.example.org", "mc.example.org", None),
            ("mc.example.org:25566", "mc.example.org", Some(25566)),
            ("127.0.0.1:27015", "127.0.0.1", Some(27015)),
            ("[::1]:7777", "::1", Some(7777)),
            ("::1", "::1", None),
            ("[2001:db8::1]", "2001:db8::1", None),
        ] {
            let a = Address::parse(text).unwrap();
            assert_eq!((a.host.as_str(), a.port), (host, port), "{text}");
            if text != "[2001:db8::1]" {
                assert_eq!(a.to_string(), text);
            }
        }
    }

    /// Bad ports and hosts are errors, not panics.
    #[test]
    fn rejects() {
        assert_eq!(Address::parse(""), Err(AddressError::Empty));
        assert!(matches!(Address::parse("a:0"), Err(AddressError::Port(_))));
        assert!(matches!(
            Address::parse("a:70000"),
            Err(AddressError::Port(_))
        ));
        assert!(matches!(
            Address::parse("a b:1"),
            Err(AddressError::Host(_))
        ));
        assert!(matches!(
            Address::parse("[zz]:1"),
            Err(AddressError::Host(_))
        ));
        assert!(matches!(
            Address::parse(":27015"),
            Err(AddressError::Host(_))
        ));
    }
}
