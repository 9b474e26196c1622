//! One request: `GET /Nitrado/Query`, asking for version 1 of the plugin's JSON.

use std::time::{Duration, Instant};

use super::{decode_page, to_status, Page, ACCEPT, QUERY_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::{Api, Fetch};
use crate::protocol::http::{encode_request, Response};
use crate::status::Status;

/// The page and its answer.
#[derive(Debug)]
pub struct QueryPage {
    params: Params,
    page: Option<Page>,
}

impl Api for QueryPage {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i > 0 {
            return None;
        }
        // Only the versioned type: `application/json` gets whatever the plugin's current
        // version is, and its README advises against relying on that.
        encode_request("GET", QUERY_PATH, &[("Accept", ACCEPT)], b"", out);
        Some("GET /Nitrado/Query")
    }

    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        self.page = Some(decode_page(response.json_page()?)?);
        Ok(())
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let page = self.page.take().unwrap_or_default();
        let p = self.params;
        Ok(to_status(page, latency, p.players, p.detail))
    }
}

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Fetch<QueryPage> {
    Fetch::new(QueryPage { params, page: None }, deadline)
}
