//! A datagram exchange followed, on the same address, by an HTTP API: Satisfactory's HTTPS
//! API after its Lightweight Query, FiveM's `/players.json` after `getinfo`. The first
//! exchange runs as it always does; once it is done, the follow-up (an [`Api`] run by
//! [`Fetch`]) gets its status and either finishes with it untouched (nothing to ask: no
//! token, no player list wanted) or asks its questions, its `Step::Connect` switching the
//! link from UDP to HTTP (`query::transport::UdpThenHttp`).

use std::time::Instant;

use super::fetch::{Api, Fetch};
use crate::protocol::exchange::tools::note;
use crate::protocol::exchange::{Exchange, Input, Step};
use crate::status::Status;

/// The HTTP side of a [`Then`].
pub trait FollowUp: Api {
    /// Whether there is anything to ask at all (decided when the poll is built).
    fn wanted(&self) -> bool;

    /// The first exchange's status: [`Api::status`] builds on it.
    fn first(&mut self, status: Status);

    /// The whole follow-up is best effort: if it fails (connection refused, a required
    /// step failing), the first status stands, the failure noted in its extras under this
    /// key. `None`: its failure is the poll's.
    fn optional(&self) -> Option<&'static str> {
        None
    }
}

/// `X`, then `A` over HTTP when `A` wants to.
#[derive(Debug)]
pub struct Then<X, A> {
    first: X,
    /// The follow-up, until the first exchange is done.
    waiting: Option<A>,
    /// The follow-up, running.
    second: Option<Fetch<A>>,
    /// The first status, kept while an optional follow-up runs.
    kept: Option<Box<Status>>,
    deadline: Instant,
}

impl<X: Exchange, A: FollowUp> Then<X, A> {
    pub fn new(first: X, follow_up: A, deadline: Instant) -> Then<X, A> {
        Then {
            first,
            waiting: Some(follow_up),
            second: None,
            kept: None,
            deadline,
        }
    }

    /// The first exchange (for `remember`).
    pub fn first(&self) -> &X {
        &self.first
    }
}

impl<X: Exchange, A: FollowUp> Exchange for Then<X, A> {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(fetch) = &mut self.second {
            return match fetch.poll(now, out) {
                Step::Failed(e) => match (self.kept.take(), fetch.api().optional()) {
                    (Some(mut status), Some(key)) => {
                        note(&mut status.extras, key, &e);
                        Step::Done(*status)
                    }
                    _ => Step::Failed(e),
                },
                step => step,
            };
        }
        let status = match self.first.poll(now, out) {
            Step::Done(status) => status,
            step => return step,
        };
        let Some(mut api) = self.waiting.take().filter(|a| a.wanted()) else {
            return Step::Done(status);
        };
        self.kept = api.optional().map(|_| Box::new(status.clone()));
        api.first(status);
        self.second = Some(Fetch::new(api, self.deadline));
        self.poll(now, out)
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        match &mut self.second {
            Some(fetch) => fetch.handle(now, input),
            None => self.first.handle(now, input),
        }
    }
}
