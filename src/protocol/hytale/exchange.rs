//! One request: `GET /Nitrado/Query`, asking for version 1 of the plugin's JSON.

use std::time::{Duration, Instant};

use super::{decode_page, to_status, Page, ACCEPT, QUERY_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::Fetch;
use crate::protocol::http::page::{self, JsonPage, OnePage};
use crate::status::Status;

impl JsonPage for Page {
    const PATH: &'static str = QUERY_PATH;
    const LABEL: &'static str = "GET /Nitrado/Query";
    // Only the versioned type: `application/json` gets whatever the plugin's current
    // version is, and its README advises against relying on that.
    const ACCEPT: &'static str = ACCEPT;

    fn decode(body: &[u8]) -> Result<Self, Error> {
        decode_page(body)
    }

    fn to_status(self, latency: Duration, players: bool, detail: bool) -> Status {
        to_status(self, latency, players, detail)
    }
}

/// The page and its answer.
pub type QueryPage = OnePage<Page>;

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Fetch<QueryPage> {
    page::new(params, deadline)
}
