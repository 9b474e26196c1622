//! One request: `GET /json`.

use std::time::{Duration, Instant};

use super::{decode_page, to_status, Page, JSON_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::Fetch;
use crate::protocol::http::page::{self, JsonPage, OnePage};
use crate::status::Status;

impl JsonPage for Page {
    const PATH: &'static str = JSON_PATH;
    const LABEL: &'static str = "GET /json";

    fn decode(body: &[u8]) -> Result<Self, Error> {
        decode_page(body)
    }

    fn to_status(self, latency: Duration, players: bool, detail: bool) -> Status {
        to_status(self, latency, players, detail)
    }
}

/// The page and its answer.
pub type StatusJson = OnePage<Page>;

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Fetch<StatusJson> {
    page::new(params, deadline)
}
