//! One request: `GET /v2/server/status?players=...[&token=...]`.

use std::time::{Duration, Instant};

use super::{decode_status, to_status, ServerStatus, STATUS_PATH};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::{Api, Fetch};
use crate::protocol::http::{encode_request, push_query_value, Response};
use crate::secret::Secret;
use crate::status::Status;

/// The status request and its answer.
#[derive(Debug)]
pub struct Tshock {
    params: Params,
    /// The REST token (`token_file`), sent as the `token` query parameter.
    token: Option<Secret>,
    answer: Option<ServerStatus>,
}

impl Api for Tshock {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i > 0 {
            return None;
        }
        let mut target = format!("{STATUS_PATH}?players={}", self.params.players);
        if let Some(token) = &self.token {
            target.push_str("&token=");
            push_query_value(&mut target, token.expose());
        }
        encode_request("GET", &target, &[("Accept", "application/json")], b"", out);
        Some("GET /v2/server/status")
    }

    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        self.answer = Some(decode_status(response.json()?)?);
        Ok(())
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let answer = self.answer.take().unwrap_or_default();
        Ok(to_status(answer, latency, self.params.detail))
    }
}

/// A poll's exchange.
pub fn new(params: Params, token: Option<Secret>, deadline: Instant) -> Fetch<Tshock> {
    Fetch::new(
        Tshock {
            params,
            token,
            answer: None,
        },
        deadline,
    )
}
