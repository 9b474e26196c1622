//! One request: `GET /frontpage`.

use std::time::{Duration, Instant};

use super::{decode_frontpage, to_status, Info, FRONTPAGE_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::Fetch;
use crate::protocol::http::page::{self, JsonPage, OnePage};
use crate::status::Status;

impl JsonPage for Info {
    const PATH: &'static str = FRONTPAGE_PATH;
    const LABEL: &'static str = "GET /frontpage";

    fn decode(body: &[u8]) -> Result<Self, Error> {
        decode_frontpage(body)
    }

    fn to_status(self, latency: Duration, players: bool, detail: bool) -> Status {
        to_status(self, latency, players, detail)
    }
}

/// The page and its answer.
pub type Frontpage = OnePage<Info>;

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Fetch<Frontpage> {
    page::new(params, deadline)
}
