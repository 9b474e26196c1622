//! An HTTP API that is one JSON page read with one GET (ElDewrito's info server, DMP's status
//! page, Eco's `/frontpage`, Build and Shoot's `/json`, Hytale's Nitrado query): the protocol
//! states the page's path, its `Accept` type, its decoder and its status ([`JsonPage`]); the
//! request, the answer and [`Fetch`] around them are here, once.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use super::fetch::{Api, Fetch};
use super::{encode_request, Response};
use crate::protocol::exchange::{Error, Params};
use crate::status::Status;

/// One protocol's page: where it is and what it means.
pub trait JsonPage: Debug + Default + Sized {
    /// The page's path (origin form, with its query if any).
    const PATH: &'static str;
    /// The request's name in transcripts: `"GET /json"`.
    const LABEL: &'static str;
    /// The `Accept` header's value.
    const ACCEPT: &'static str = "application/json";

    /// The page from a JSON body (status 200 and a JSON content type already checked).
    fn decode(body: &[u8]) -> Result<Self, Error>;

    /// The status the page says, with the poll's round trip and its `players`/`detail` asks.
    fn to_status(self, latency: Duration, players: bool, detail: bool) -> Status;
}

/// The one request and its answer.
#[derive(Debug)]
pub struct OnePage<P> {
    params: Params,
    page: Option<P>,
}

impl<P: JsonPage> Api for OnePage<P> {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i > 0 {
            return None;
        }
        encode_request("GET", P::PATH, &[("Accept", P::ACCEPT)], b"", out);
        Some(P::LABEL)
    }

    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        self.page = Some(P::decode(response.json_page()?)?);
        Ok(())
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let page = self.page.take().unwrap_or_default();
        let p = self.params;
        Ok(page.to_status(latency, p.players, p.detail))
    }
}

/// A poll's exchange: the page, fetched once.
pub fn new<P: JsonPage>(params: Params, deadline: Instant) -> Fetch<OnePage<P>> {
    Fetch::new(OnePage { params, page: None }, deadline)
}
