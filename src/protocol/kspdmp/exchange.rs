//! One request: `GET /` (the status page).

use std::time::{Duration, Instant};

use super::{decode_info, to_status, Info, STATUS_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::Fetch;
use crate::protocol::http::page::{self, JsonPage, OnePage};
use crate::status::Status;

impl JsonPage for Info {
    const PATH: &'static str = STATUS_PATH;
    const LABEL: &'static str = "GET /";

    fn decode(body: &[u8]) -> Result<Self, Error> {
        decode_info(body)
    }

    fn to_status(self, latency: Duration, players: bool, detail: bool) -> Status {
        to_status(self, latency, players, detail)
    }
}

/// The page and its answer.
pub type InfoPage = OnePage<Info>;

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Fetch<InfoPage> {
    page::new(params, deadline)
}
