//! One request: `GET /` (the status page).

use std::time::{Duration, Instant};

use super::{decode_info, to_status, Info, STATUS_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::{Api, Fetch};
use crate::protocol::http::{encode_request, Response};
use crate::status::Status;

/// The page and its answer.
#[derive(Debug)]
pub struct InfoPage {
    params: Params,
    info: Option<Info>,
}

impl Api for InfoPage {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i > 0 {
            return None;
        }
        encode_request(
            "GET",
            STATUS_PATH,
            &[("Accept", "application/json")],
            b"",
            out,
        );
        Some("GET /")
    }

    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        self.info = Some(decode_info(response.json_page()?)?);
        Ok(())
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let info = self.info.take().unwrap_or_default();
        let p = self.params;
        Ok(to_status(info, latency, p.players, p.detail))
    }
}

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Fetch<InfoPage> {
    Fetch::new(InfoPage { params, info: None }, deadline)
}
