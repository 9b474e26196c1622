//! Why a poll failed, structured, and the one place where that becomes a label.
//!
//! Below the dialogues, errors are structured values: [`DecodeError`] (what was wrong with
//! the bytes), wrapped by [`NetError`] (what the network did). The dialogues add what only
//! they can tell (a challenge loop, replies that never matched, a split reply cut off).
//! Fallback decisions read these values; [`Error::reason`] alone maps them onto the closed
//! [`Reason`] set that the metrics publish.

use std::net::IpAddr;

use crate::net::NetError;
use crate::protocol::DecodeError;
use crate::status::{Failure, Reason};

/// Why a poll (or one best-effort step of it) failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The network failed, or a reply that was ours did not decode.
    #[error(transparent)]
    Net(#[from] NetError),
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
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        Error::Net(NetError::Decode(e))
    }
}

impl Error {
    /// The failure reason published for this error: the only mapping from errors to labels.
    pub fn reason(&self) -> Reason {
        match self {
            Error::Net(e) => match e {
                NetError::Timeout => Reason::Timeout,
                NetError::Refused => Reason::Refused,
                NetError::Dns { .. } => Reason::Dns,
                NetError::Closed { .. } => Reason::Incomplete,
                NetError::TooLarge { .. } => Reason::TooLarge,
                NetError::Io(_) => Reason::Network,
                NetError::Decode(d) => match d {
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
        }
    }

    /// The decode error inside, if the bytes were what failed.
    pub fn decode(&self) -> Option<&DecodeError> {
        match self {
            Error::Net(NetError::Decode(d)) => Some(d),
            _ => None,
        }
    }

    /// Nothing answering this request came: the server ignores it (a timeout, or only
    /// replies to something else). Best-effort steps and token refreshes read this.
    pub fn unanswered(&self) -> bool {
        matches!(
            self,
            Error::Net(NetError::Timeout)
                | Error::Unanswered { .. }
                | Error::Net(NetError::Decode(DecodeError::Mismatch(_)))
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
            Error::Net(NetError::TooLarge { limit: 10 }).reason(),
            Reason::TooLarge
        );
    }

    /// Every reason is reachable from some error, and the detail keeps the error's text.
    #[test]
    fn every_reason_reachable() {
        let errors = [
            Error::Net(NetError::Timeout),
            Error::Net(NetError::Refused),
            Error::Net(NetError::Dns {
                name: "x".into(),
                detail: "y".into(),
            }),
            Error::Net(NetError::Io(std::sync::Arc::new(std::io::Error::other(
                "z",
            )))),
            Error::from(DecodeError::Invalid("x")),
            Error::Unanswered { count: 1 },
            Error::Challenge { limit: 3 },
            Error::Net(NetError::TooLarge { limit: 1 }),
            Error::SplitIncomplete,
        ];
        let reasons: Vec<Reason> = errors.iter().map(Error::reason).collect();
        assert_eq!(reasons, Reason::ALL.to_vec());
        let f = Failure::from(Error::Challenge { limit: 3 });
        assert_eq!(f.detail, "server issued more than 3 challenges in a row");
    }
}
