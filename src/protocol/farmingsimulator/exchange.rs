//! One request: `GET /feed/dedicated-server-stats.xml?code=...`.

use std::time::{Duration, Instant};

use super::{decode_feed, to_status, Feed, FEED_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::{Api, Fetch};
use crate::protocol::http::{encode_request, push_query_value, Response};
use crate::secret::Secret;
use crate::status::Status;

/// The feed request and its answer.
#[derive(Debug)]
pub struct StatsFeed {
    params: Params,
    /// The server's stats code (`code_file`), sent as the `code` query parameter: the
    /// transcript redacts it (`protocol::http::redact`), nothing else shows the URL.
    code: Option<Secret>,
    answer: Option<Feed>,
}

impl Api for StatsFeed {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i > 0 {
            return None;
        }
        let mut target = format!("{FEED_PATH}?code=");
        if let Some(code) = &self.code {
            push_query_value(&mut target, code.expose());
        }
        encode_request(
            "GET",
            &target,
            &[("Accept", "text/xml, application/xml")],
            b"",
            out,
        );
        Some("GET /feed/dedicated-server-stats.xml")
    }

    /// Any 200 is read as XML: the game's web server labels the feed `text/xml`, proxies and
    /// older versions other things, and a body that is not the feed fails as malformed anyway.
    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        if response.status != 200 {
            return Err(Error::HttpStatus {
                status: response.status,
            });
        }
        self.answer = Some(decode_feed(response.body)?);
        Ok(())
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let feed = self.answer.take().unwrap_or_default();
        Ok(to_status(
            feed,
            latency,
            self.params.players,
            self.params.detail,
        ))
    }
}

/// A poll's exchange.
pub fn new(params: Params, code: Option<Secret>, deadline: Instant) -> Fetch<StatsFeed> {
    Fetch::new(
        StatsFeed {
            params,
            code,
            answer: None,
        },
        deadline,
    )
}
