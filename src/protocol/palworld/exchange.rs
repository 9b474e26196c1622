//! `GET /v1/api/info`, then `/v1/api/metrics`, then (with `players`) `/v1/api/players`, on
//! one connection, each with the basic-auth header.

use std::time::{Duration, Instant};

use super::{
    decode_info, decode_metrics, decode_players, Info, Metrics, INFO_PATH, METRICS_PATH,
    PLAYERS_PATH,
};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::http::fetch::{Api, Fetch};
use crate::protocol::http::{encode_request, Response};
use crate::secret::Secret;
use crate::status::{Health, Player, Status};

/// The three requests and their answers.
#[derive(Debug)]
pub struct PalworldApi {
    params: Params,
    /// The whole `Authorization` header value (`Basic ...`), built by the daemon.
    authorization: Option<Secret>,
    info: Option<Info>,
    metrics: Option<Metrics>,
    players: Option<Vec<Player>>,
}

const STEPS: [(&str, &str); 3] = [
    (INFO_PATH, "GET /v1/api/info"),
    (METRICS_PATH, "GET /v1/api/metrics"),
    (PLAYERS_PATH, "GET /v1/api/players"),
];

impl Api for PalworldApi {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i == 2 && !self.params.players {
            return None;
        }
        let (path, what) = STEPS.get(i)?;
        let mut headers = vec![("Accept", "application/json")];
        if let Some(auth) = &self.authorization {
            headers.push(("Authorization", auth.expose()));
        }
        encode_request("GET", path, &headers, b"", out);
        Some(what)
    }

    fn response(&mut self, i: usize, response: &Response<'_>) -> Result<(), Error> {
        let body = response.json()?;
        match i {
            0 => self.info = Some(decode_info(body)?),
            1 => self.metrics = Some(decode_metrics(body)?),
            _ => self.players = Some(decode_players(body)?),
        }
        Ok(())
    }

    fn best_effort(&self, i: usize) -> Option<&'static str> {
        (i == 2).then_some("players_error")
    }

    fn status(&mut self, latency: Duration) -> Result<Status, Error> {
        let info = self.info.take().unwrap_or_default();
        let m = self.metrics.take().unwrap_or_default();
        let mut s = Status {
            online: m.currentplayernum,
            max: m.maxplayernum,
            name: info.servername,
            game: Some("Palworld".into()),
            version: info.version,
            latency,
            ..Status::default()
        };
        // Server FPS is the rate the server achieves; the frame time its mean tick time.
        let health = Health {
            tick_rate_hertz: m.serverfps,
            tick_duration_seconds: m.serverframetime.map(|ms| ms / 1000.0),
            ..Health::default()
        };
        if !health.is_empty() {
            s.health = Some(Box::new(health));
        }
        if let Some(up) = m.uptime {
            s.extras.insert("uptime_seconds".into(), up.into());
        }
        if let Some(days) = m.days {
            s.extras.insert("days".into(), days.into());
        }
        if let Some(list) = self.players.take() {
            s.online = s.online.max(list.len().min(u32::MAX as usize) as u32);
            s.players = Some(list);
        }
        Ok(s)
    }
}

/// A poll's exchange.
pub fn new(params: Params, authorization: Option<Secret>, deadline: Instant) -> Fetch<PalworldApi> {
    Fetch::new(
        PalworldApi {
            params,
            authorization,
            info: None,
            metrics: None,
            players: None,
        },
        deadline,
    )
}
