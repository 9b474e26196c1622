//! The Cube 2 dialogue: the server-info ping, and for Sauerbraten with `players` asked the
//! extinfo player list ([`super::extinfo`]). No socket, no clock.
//!
//! Latency is the ping's round trip. Every reply starts with its request's bytes, so a
//! reply to another poll (a late one, or another poller's) is a `Mismatch` and skipped.
//!
//! The extinfo step runs only for Sauerbraten (Red Eclipse lists names in its info reply)
//! with at least one player (the server's own count; bots leave an empty server). It ends
//! when every id the header listed has its record. The info reply already proved the server
//! up, so a datagram lost on the way does not fail the poll: at the deadline the status
//! carries the records that came (in the header's order; none without the header), and
//! `extinfo_missing` in the detail says how many did not. A datagram that is not extinfo
//! at all (garbage, an error answer, too many ids) fails the poll as `malformed` or
//! `too_large`, as a bad info reply does.

use std::time::{Duration, Instant};

use super::extinfo::{self, ExtPlayer};
use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::{cube2, DecodeError};
use crate::status::Status;

/// The extinfo step, once the info reply is in.
#[derive(Debug)]
struct Ext {
    info: cube2::Info,
    latency: Duration,
    ask: Ask,
    request: Vec<u8>,
    max_ids: usize,
    /// The header's ids, once it came.
    ids: Option<Vec<i32>>,
    /// Records by arrival, one per client number, at most `max_ids`.
    got: Vec<ExtPlayer>,
}

impl Ext {
    fn complete(&self) -> bool {
        self.ids
            .as_ref()
            .is_some_and(|ids| ids.iter().all(|id| self.got.iter().any(|p| p.cn == *id)))
    }

    fn status(&self, params: &Params) -> Status {
        let mut s = cube2::to_status(&self.info, self.latency, params.players, params.detail);
        let Some(ids) = &self.ids else {
            if params.detail {
                s.extras.insert("extinfo_missing".into(), "header".into());
            }
            return s;
        };
        let list: Vec<&ExtPlayer> = ids
            .iter()
            .filter_map(|id| self.got.iter().find(|p| p.cn == *id))
            .collect();
        // The engine numbers its bots from MAXCLIENTS on (`aiman::addai`).
        let bots = ids.iter().filter(|&&id| id >= extinfo::FIRST_BOT).count();
        s.bots = u32::try_from(bots).ok();
        if params.detail {
            s.extras
                .insert("extinfo_missing".into(), (ids.len() - list.len()).into());
        }
        s.players = Some(list.into_iter().map(cube2::ext_player).collect());
        s
    }
}

/// One poll of one Cube 2 server.
#[derive(Debug)]
pub struct Cube2 {
    params: Params,
    nonce: i32,
    /// The ping's bytes, which the info reply must echo.
    request: Vec<u8>,
    ask: Ask,
    deadline: Instant,
    ext: Option<Ext>,
    outcome: Option<Result<Status, Error>>,
    over: bool,
}

impl Cube2 {
    fn on_info(&mut self, bytes: &[u8], rtt: Duration) -> Result<(), DecodeError> {
        let info = cube2::decode(bytes, &self.request)?;
        let p = &self.params;
        if p.players && info.red_eclipse.is_none() && info.players > 0 {
            let mut request = Vec::new();
            extinfo::encode_request(self.nonce, &mut request);
            let slots = info.attrs.get(3).copied();
            self.ext = Some(Ext {
                max_ids: extinfo::id_cap(info.players, slots),
                info,
                latency: rtt,
                ask: Ask::new(self.deadline),
                request,
                ids: None,
                got: Vec::new(),
            });
        } else {
            self.outcome = Some(Ok(cube2::to_status(&info, rtt, p.players, p.detail)));
        }
        Ok(())
    }

    fn on_ext(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let Some(ext) = self.ext.as_mut() else {
            return Ok(());
        };
        match extinfo::decode(bytes, &ext.request, ext.max_ids)? {
            // A repeated header (a resend's answer) changes nothing.
            extinfo::Reply::Ids(ids) => {
                ext.ids.get_or_insert(ids);
            }
            extinfo::Reply::Player(p) => {
                let known = ext.got.iter().any(|g| g.cn == p.cn);
                if !known && ext.got.len() < ext.max_ids {
                    ext.got.push(p);
                }
            }
        }
        if ext.complete() {
            self.outcome = Some(Ok(ext.status(&self.params)));
        }
        Ok(())
    }
}

/// A poll's exchange: one ping carrying `nonce` (and the extinfo request carrying it too),
/// answered until `deadline`.
pub fn new(params: &Params, nonce: i32, deadline: Instant) -> Cube2 {
    let mut request = Vec::new();
    cube2::encode_request(nonce, &mut request);
    Cube2 {
        params: *params,
        nonce,
        request,
        ask: Ask::new(deadline),
        deadline,
        ext: None,
        outcome: None,
        over: false,
    }
}

/// A fresh nonce per poll, only for matching the reply.
pub fn nonce() -> i32 {
    random_u32() as i32
}

impl Exchange for Cube2 {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(outcome) = self.outcome.take() {
            self.over = true;
            return match outcome {
                Ok(status) => Step::Done(status),
                Err(e) => Step::Failed(e),
            };
        }
        if self.over {
            return Step::Failed(LinkError::Timeout.into());
        }
        if let Some(ext) = self.ext.as_mut() {
            return match ext.ask.next(now) {
                Next::Send => {
                    out.clear();
                    out.extend_from_slice(&ext.request);
                    Step::Send("Sauerbraten extinfo player stats")
                }
                Next::Wait(step) => step,
                // The server is up: what came is the list.
                Next::Expired(_) => {
                    self.over = true;
                    Step::Done(ext.status(&self.params))
                }
            };
        }
        match self.ask.next(now) {
            Next::Send => {
                out.clear();
                out.extend_from_slice(&self.request);
                Step::Send("Cube 2 server-info ping")
            }
            Next::Wait(step) => step,
            Next::Expired(e) => {
                self.over = true;
                Step::Failed(e)
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.outcome.is_some() || self.over {
            return;
        }
        let result = match input {
            Input::Received { bytes, rtt } if self.ext.is_none() => self.on_info(bytes, rtt),
            Input::Received { bytes, .. } => self.on_ext(bytes),
            Input::Closed => {
                self.outcome = Some(Err(LinkError::Closed { received: 0 }.into()));
                return;
            }
            Input::Failed(e) => {
                self.outcome = Some(Err(e.into()));
                return;
            }
        };
        match result {
            Ok(()) => {}
            // Not our reply: skipped, counted.
            Err(DecodeError::Mismatch(_)) => match self.ext.as_mut() {
                Some(ext) => ext.ask.foreign(),
                None => self.ask.foreign(),
            },
            Err(e) => self.outcome = Some(Err(e.into())),
        }
    }
}
