//! `GET /INFO`, then (with `players`) `GET /JSON|<number>` on the same connection, best
//! effort.

use std::time::{Duration, Instant};

use super::{decode_cars, decode_info, to_status, Info, CARS_PATH, INFO_PATH};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::{Api, Fetch};
use crate::protocol::http::{encode_request, Response};
use crate::status::{Player, Status};

/// The two pages and their answers.
#[derive(Debug)]
pub struct AcServer {
    params: Params,
    /// The number after `JSON|` (the game sends its Steam id; any number is answered).
    client: u32,
    info: Option<Info>,
    players: Option<Vec<Player>>,
}

impl Api for AcServer {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        match i {
            0 => {
                encode_request(
                    "GET",
                    INFO_PATH,
                    &[("Accept", "application/json")],
                    b"",
                    out,
                );
                Some("GET /INFO")
            }
            1 if self.params.players => {
                let target = format!("{CARS_PATH}{}", self.client);
                encode_request("GET", &target, &[("Accept", "application/json")], b"", out);
                Some("GET /JSON|")
            }
            _ => None,
        }
    }

    fn response(&mut self, i: usize, response: &Response<'_>) -> Result<(), Error> {
        let body = response.json_page()?;
        match i {
            0 => self.info = Some(decode_info(body)?),
            _ => self.players = Some(decode_cars(body)?),
        }
        Ok(())
    }

    fn best_effort(&self, i: usize) -> Option<&'static str> {
        (i == 1).then_some("players_error")
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let info = self.info.take().unwrap_or_default();
        Ok(to_status(
            info,
            self.players.take(),
            latency,
            self.params.detail,
        ))
    }
}

/// A poll's exchange; `client` is the number the entry list is asked with.
pub fn new(params: Params, client: u32, deadline: Instant) -> Fetch<AcServer> {
    Fetch::new(
        AcServer {
            params,
            client,
            info: None,
            players: None,
        },
        deadline,
    )
}

/// A poll's exchange with a fresh number (as the game's lobby, which sends its own).
pub fn fresh(params: Params, deadline: Instant) -> Fetch<AcServer> {
    new(params, random_u32(), deadline)
}
