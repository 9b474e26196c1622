//! Why a poll failed, structured, and the one place where that becomes a label.
//!
//! Below the dialogues, errors are structured values: [`DecodeError`] (what was wrong with
//! the bytes), wrapped by [`LinkError`] (what the link did; the daemon's `net` names it
//! `LinkError`). The dialogues add what only
//! they can tell (a challenge loop, replies that never matched, a split reply cut off).
//! Fallback decisions read these values; [`Error::reason`] alone maps them onto the closed
//! [`Reason`] set that the metrics publish.

use std::io;
use std::net::IpAddr;
use std::sync::Arc;

use crate::protocol::DecodeError;
use crate::status::{Failure, Reason};

/// Why talking to a server failed below the dialogue: the link (socket, DNS), or bytes that
/// did not decode (wrapped, as hickory's `LinkError` wraps its proto errors). Defined here,
/// runtime-free, so exchanges can react to it; `net` produces it (as `LinkError`). `Clone`
/// (the io error is shared) so results can be cached. Structured, never a label:
/// [`Error::reason`] is the one place that turns it into a failure reason.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LinkError {
    #[error("timed out")]
    Timeout,
    #[error("connection refused")]
    Refused,
    #[error("name resolution failed for {name}: {detail}")]
    Dns { name: String, detail: String },
    #[error("connection closed after {received} byte(s), before the reply was complete")]
    Closed { received: usize },
    /// More bytes than the configured cap on a reply.
    #[error("reply exceeds {limit} bytes")]
    TooLarge { limit: usize },
    #[error("{0}")]
    Io(Arc<io::Error>),
    /// The bytes arrived but did not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl From<io::Error> for LinkError {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::ConnectionRefused => LinkError::Refused,
            io::ErrorKind::TimedOut => LinkError::Timeout,
            _ => LinkError::Io(Arc::new(e)),
        }
    }
}

/// Why a poll (or one best-effort step of it) failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The network failed, or a reply that was ours did not decode.
    #[error(transparent)]
    Net(#[from] LinkError),
    /// The server kept issuing new challenges past the configured bound.
    #[error("server issued more than {limit} challenges in a row")]
    Challenge { limit: u8 },
    /// Datagrams came from the server, but none answered the request (another session id,
    /// header or payload): late replies or junk.
    #[error("{count} datagram(s) arrived, none answering our request")]
    Unanswered { count: u32 },
    /// Only undecodable datagrams came before the deadline; the last decode error.
    #[error("only undecodable replies before the deadline; last: {0}")]
    Garbage(DecodeError),
    /// A split reply had started but was not complete at the deadline.
    #[error("split reply still incomplete at the deadline")]
    SplitIncomplete,
    /// The protocol needs an IPv4 address (SA:MP carries it in every request).
    #[error(
        "{name} resolved to {ip}: SA:MP query carries the server's IPv4 address in every \
         request, so it needs one"
    )]
    NotIpv4 { name: String, ip: IpAddr },
    /// An HTTP API answered with another status than the one asked for: a refused login
    /// (401, 403), a rate limit (429, 503), a redirect (never followed), or an error.
    #[error("HTTP status {status}{}", http_status_hint(*status))]
    HttpStatus { status: u16 },
    /// An HTTP API answered with another content type than JSON (a login page, a proxy's
    /// error page).
    #[error("content type {found:?} where JSON was expected")]
    ContentType { found: String },
    /// The server refused our credentials. Says which login, never with what.
    #[error("the server refused the {what}")]
    AuthRefused { what: &'static str },
    /// The target has no credentials, and the protocol has nothing to ask without them
    /// (an ad-hoc poll of a protocol that only answers after a login).
    #[error("{protocol} needs credentials (a configured target with {key})")]
    NoCredentials {
        protocol: &'static str,
        key: &'static str,
    },
    /// A decoded count no real server reaches ([`crate::status::MAX_PLAUSIBLE_COUNT`]): a
    /// misread reply (a length byte off by one, a negative that wrapped), never published.
    #[error("{field} {value} is not a count a real server reports (over {max})", max = crate::status::MAX_PLAUSIBLE_COUNT)]
    Implausible { field: &'static str, value: u64 },
    /// An XML-RPC server (GBXRemote) answered a call with a fault. Its code only: the fault's
    /// text may quote what the call carried.
    #[error("{method} answered an XML-RPC fault (code {code})")]
    Fault { method: &'static str, code: i64 },
}

fn http_status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (login refused)",
        429 => " (rate limited)",
        503 => " (unavailable)",
        300..=399 => " (redirects are not followed)",
        _ => "",
    }
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Error::Net(LinkError::Decode(e))
    }
}

impl Error {
    /// The failure reason published for this error: the only mapping from errors to labels.
    pub fn reason(&self) -> Reason {
        match self {
            Error::Net(e) => match e {
                LinkError::Timeout => Reason::Timeout,
                LinkError::Refused => Reason::Refused,
                LinkError::Dns { .. } => Reason::Dns,
                LinkError::Closed { .. } => Reason::Incomplete,
                LinkError::TooLarge { .. } => Reason::TooLarge,
                LinkError::Io(_) => Reason::Network,
                LinkError::Decode(d) => match d {
                    DecodeError::TooLarge { .. } => Reason::TooLarge,
                    DecodeError::Mismatch(_) => Reason::Mismatch,
                    _ => Reason::Malformed,
                },
            },
            Error::Challenge { .. } => Reason::Challenge,
            Error::Unanswered { .. } => Reason::Mismatch,
            Error::Garbage(_) => Reason::Malformed,
            Error::SplitIncomplete => Reason::Incomplete,
            Error::NotIpv4 { .. } => Reason::Dns,
            // The server is there and refuses our login.
            Error::HttpStatus { status: 401 | 403 } => Reason::AuthRefused,
            // The server is there and says no: a rate limit.
            Error::HttpStatus { status: 429 | 503 } => Reason::Refused,
            Error::HttpStatus { .. } | Error::ContentType { .. } => Reason::Malformed,
            Error::Implausible { .. } => Reason::Malformed,
            // The server answered, but not with what the call asks for.
            Error::Fault { .. } => Reason::Malformed,
            Error::AuthRefused { .. } | Error::NoCredentials { .. } => Reason::AuthRefused,
        }
    }

    /// The decode error inside, if the bytes were what failed.
    pub fn decode(&self) -> Option<&DecodeError> {
        match self {
            Error::Net(LinkError::Decode(d)) => Some(d),
            _ => None,
        }
    }

    /// Nothing answering this request came: the server ignores it (a timeout, or only
    /// replies to something else). Best-effort steps and token refreshes read this.
    pub fn unanswered(&self) -> bool {
        matches!(
            self,
            Error::Net(LinkError::Timeout)
                | Error::Unanswered { .. }
                | Error::Net(LinkError::Decode(DecodeError::Mismatch(_)))
        )
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::new(e.reason(), e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A length past what arrived is `malformed`; a cap that was hit is `too_large`.
    #[test]
    fn overrun_is_malformed_cap_is_too_large() {
        let overrun = Error::from(DecodeError::Overrun {
            what: "string length",
            value: 14,
            fits: 13,
        });
        assert_eq!(overrun.reason(), Reason::Malformed);
        let cap = Error::from(DecodeError::TooLarge {
            what: "frame length",
            value: 2 << 30,
            limit: 1 << 20,
        });
        assert_eq!(cap.reason(), Reason::TooLarge);
        assert_eq!(
            Error::Net(LinkError::TooLarge { limit: 10 }).reason(),
            Reason::TooLarge
        );
    }

    /// Every reason is reachable from some error, and the detail keeps the error's text.
    #[test]
    fn every_reason_reachable() {
        let errors = [
            Error::Net(LinkError::Timeout),
            Error::Net(LinkError::Refused),
            Error::Net(LinkError::Dns {
                name: "x".into(),
                detail: "y".into(),
            }),
            Error::Net(LinkError::Io(std::sync::Arc::new(std::io::Error::other(
                "z",
            )))),
            Error::from(DecodeError::Invalid("x")),
            Error::Unanswered { count: 1 },
            Error::Challenge { limit: 3 },
            Error::Net(LinkError::TooLarge { limit: 1 }),
            Error::SplitIncomplete,
            Error::AuthRefused {
                what: "RCON password",
            },
        ];
        let reasons: Vec<Reason> = errors.iter().map(Error::reason).collect();
        assert_eq!(reasons, Reason::ALL.to_vec());
        let f = Failure::from(Error::Challenge { limit: 3 });
        assert_eq!(f.detail, "server issued more than 3 challenges in a row");
    }
}
