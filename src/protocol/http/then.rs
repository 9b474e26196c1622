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

#[derive(Debug)]
enum Phase<A> {
    /// The first exchange runs; the follow-up waits for its status.
    First(Option<A>),
    /// The follow-up runs; the first status is kept when the follow-up is optional.
    Second(Fetch<A>, Option<Status>),
}

/// `X`, then `A` over HTTP when `A` wants to.
#[derive(Debug)]
pub struct Then<X, A> {
    first: X,
    phase: Phase<A>,
    deadline: Instant,
}

impl<X: Exchange, A: FollowUp> Then<X, A> {
    pub fn new(first: X, follow_up: A, deadline: Instant) -> Then<X, A> {
        Then {
            first,
            phase: Phase::First(Some(follow_up)),
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
        let status = match &mut self.phase {
            Phase::Second(fetch, kept) => {
                return match fetch.poll(now, out) {
                    Step::Failed(e) => match (kept.take(), fetch.api().optional()) {
                        (Some(mut status), Some(key)) => {
                            note(&mut status.extras, key, &e);
                            Step::Done(status)
                        }
                        _ => Step::Failed(e),
                    },
                    step => step,
                };
            }
            Phase::First(api) => match self.first.poll(now, out) {
                Step::Done(status) => match api.take() {
                    Some(api) if api.wanted() => (api, status),
                    _ => return Step::Done(status),
                },
                step => return step,
            },
        };
        let (mut api, status) = status;
        let kept = api.optional().map(|_| status.clone());
        api.first(status);
        self.phase = Phase::Second(Fetch::new(api, self.deadline), kept);
        self.poll(now, out)
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        match &mut self.phase {
            Phase::First(_) => self.first.handle(now, input),
            Phase::Second(fetch, _) => fetch.handle(now, input),
        }
    }
}
