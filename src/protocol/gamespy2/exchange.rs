//! The GameSpy 2 dialogue: one request (`FE FD 00`, a fresh request id, the sections wanted)
//! and its one reply datagram, run as a [`OneShot`].
//!
//! Server info is always asked for (it carries the counts); the player table only when the
//! poll wants players, the team table only for `detail` (the `query` command), so a daemon
//! poll's reply stays small. A reply echoing another request id (a late answer to an earlier
//! poll) is skipped (`mismatch` if only those came); any other decode error fails the poll
//! (`malformed`, or `too_large` past a cap). Latency is the request's round trip.

use std::time::{Duration, Instant};

use super::map::{to_status, Want};
use super::reply::{decode_reply, Reply};
use super::{encode_request, Request, Sections};
use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::DecodeError;
use crate::status::Status;

/// One request and what its reply must echo.
#[derive(Debug)]
pub struct Query {
    pub request: Request,
    pub want: Want,
}

impl Codec for Query {
    type Reply = Reply;
    const REQUEST: &'static str = "GameSpy 2 query";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        encode_request(&self.request, out);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<Reply, DecodeError> {
        decode_reply(datagram, self.request.id, self.request.sections)
    }

    fn to_status(&self, reply: Reply, latency: Duration) -> Status {
        to_status(&reply, self.want, latency)
    }
}

impl Query {
    /// The query a poll with `params` sends, with request id `id`.
    pub fn new(params: &Params, id: [u8; 4]) -> Query {
        Query {
            request: Request {
                id,
                sections: Sections {
                    info: true,
                    players: params.players,
                    teams: params.detail,
                },
            },
            want: Want {
                detail: params.detail,
                players: params.players,
                rules: params.rules,
            },
        }
    }
}

/// A poll's exchange: one query with a fresh request id, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<Query> {
    OneShot::new(Query::new(params, random_u32().to_be_bytes()), deadline)
}

#[cfg(test)]
mod tests {
    use super::super::encode_reply;
    use super::*;
    use crate::protocol::exchange::{Exchange, Input, Step};
    use crate::status::Reason;

    const T: Duration = Duration::from_secs(1);

    fn reply(id: [u8; 4], sections: Sections) -> Vec<u8> {
        let reply = Reply {
            id,
            vars: vec![
                ("hostname".into(), "x".into()),
                ("numplayers".into(), "3".into()),
            ],
            ..Reply::default()
        };
        let mut out = Vec::new();
        encode_reply(&reply, sections, &mut out);
        out
    }

    /// Feeds `datagrams`, then lets the deadline pass.
    fn run(params: Params, datagrams: &[&[u8]]) -> (Vec<u8>, Result<Status, Reason>) {
        let t0 = Instant::now();
        let mut x = OneShot::new(Query::new(&params, *b"abcd"), t0 + T);
        let mut out = Vec::new();
        assert!(matches!(
            x.poll(t0, &mut out),
            Step::Send("GameSpy 2 query")
        ));
        let sent = out.clone();
        for d in datagrams {
            let rtt = Duration::from_millis(3);
            x.handle(t0, Input::Received { bytes: d, rtt });
            match x.poll(t0, &mut out) {
                Step::Wait(_) => {}
                Step::Done(s) => return (sent, Ok(s)),
                Step::Failed(e) => return (sent, Err(e.reason())),
                other => panic!("{other:?}"),
            }
        }
        match x.poll(t0 + T, &mut out) {
            Step::Failed(e) => (sent, Err(e.reason())),
            other => panic!("{other:?}"),
        }
    }

    /// A daemon poll asks for server info only; players and detail add their tables.
    #[test]
    fn sections_follow_the_poll() {
        let (sent, _) = run(Params::default(), &[]);
        assert_eq!(sent, b"\xfe\xfd\x00abcd\xff\x00\x00");
        let all = Params {
            players: true,
            detail: true,
            ..Params::default()
        };
        let (sent, _) = run(all, &[]);
        assert_eq!(sent, b"\xfe\xfd\x00abcd\xff\xff\xff");
    }

    /// Someone else's reply is skipped, ours ends the poll with the counts.
    #[test]
    fn skips_other_ids() {
        let info = Sections {
            info: true,
            players: false,
            teams: false,
        };
        let theirs = reply(*b"abcX", info);
        let ours = reply(*b"abcd", info);
        let (_, got) = run(Params::default(), &[&theirs, &ours]);
        let s = got.unwrap();
        assert_eq!((s.name.as_str(), s.online), ("x", 3));
        assert_eq!(s.latency, Duration::from_millis(3));
        assert_eq!(
            run(Params::default(), &[&theirs]).1.unwrap_err(),
            Reason::Mismatch
        );
    }

    /// A malformed reply fails at once; silence fails at the deadline.
    #[test]
    fn malformed_and_silent() {
        assert_eq!(
            run(Params::default(), &[b"\x07"]).1.unwrap_err(),
            Reason::Malformed
        );
        assert_eq!(run(Params::default(), &[]).1.unwrap_err(), Reason::Timeout);
    }
}
