//! GameSpy 3 through the exporter's own poll (registry entry, shared driver, resends) against
//! the simulator on 127.0.0.1: a friendly server (with and without a challenge, split into
//! many parts), what the session remembers between polls, and every misbehaviour's reason.

use gameserver_exporter::protocol::gamespy3::exchange::Memory as Gs3Memory;
use std::time::Duration;

use gameserver_exporter::query::driver::Event;
use gameserver_exporter::query::{poll, poll_observed, poll_with, Observer, Request, Session};
use gameserver_exporter::simulate::gamespy3::{spawn, Gs3Config, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world(players: usize) -> World {
    World::new(WorldState {
        name: "Sim BF2".into(),
        map: "Strike At Karkand".into(),
        game: "battlefield2".into(),
        version: "1.5.3153-802.0".into(),
        max: 64,
        players: (0..players)
            .map(|i| (format!("soldier number {i}"), i as i32, 0.0))
            .collect(),
        ..WorldState::default()
    })
}

fn request(server: &SimServer, timeout_ms: u64) -> Request {
    let mut req = Request::new(
        Protocol::Gamespy3,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(timeout_ms);
    req.players = true;
    req.rules = true;
    req
}

fn mis(misbehaviour: Misbehaviour) -> Gs3Config {
    Gs3Config {
        misbehaviour,
        part_len: 300,
    }
}

/// The labels of the requests a poll sent, resends not counted.
#[derive(Default)]
struct Sent(Vec<&'static str>);

impl Observer for Sent {
    fn event(&mut self, _at: tokio::time::Instant, event: Event<'_>) {
        if let Event::Sent { what, .. } = event {
            self.0.push(what);
        }
    }
}

async fn observed(
    req: &Request,
    session: &mut Session,
) -> (Result<Status, Reason>, Vec<&'static str>) {
    let mut sent = Sent::default();
    let result = poll_observed(req, session, Some(&mut sent)).await;
    (result.map_err(|f| f.reason), sent.0)
}

/// Name, map, counts, every player and the rules, from a reply in many parts, after a
/// handshake and a request with the challenge.
#[tokio::test]
async fn friendly_server_split_reply() {
    let server = spawn(world(40), mis(Misbehaviour::None)).await.unwrap();
    let mut req = request(&server, 3000);
    req.detail = true;
    let (s, sent) = observed(&req, &mut Session::default()).await;
    let s = s.unwrap();
    assert_eq!(
        sent,
        ["GameSpy3 handshake", "GameSpy3 request with the challenge"]
    );
    assert_eq!(s.name, "Sim BF2");
    assert_eq!(s.map.as_deref(), Some("Strike At Karkand"));
    assert_eq!(s.game.as_deref(), Some("battlefield2"));
    assert_eq!(s.version.as_deref(), Some("1.5.3153-802.0"));
    assert_eq!((s.online, s.max, s.password), (40, 64, Some(false)));
    assert!(s.latency > Duration::ZERO);
    let players = s.players.unwrap();
    assert_eq!(players.len(), 40);
    assert_eq!(players[39].name, "soldier number 39");
    assert_eq!((players[39].score, players[39].ping), (Some(39), Some(50)));
    let rules = s.rules.unwrap();
    assert!(rules.contains(&("gametype".into(), "gpm_cq".into())));
    assert!(rules.contains(&("mp_friendlyfire".into(), "0".into())));
    assert_eq!(s.extras.get("teams"), Some(&json!(["MEC", "USMC"])));
}

/// Duplicated and reordered parts give the same status.
#[tokio::test]
async fn duplicated_and_reordered_parts() {
    let server = spawn(world(40), mis(Misbehaviour::None)).await.unwrap();
    let mut want = poll(&request(&server, 3000)).await.unwrap();
    for m in [Misbehaviour::Duplicated, Misbehaviour::Reordered] {
        let server = spawn(world(40), mis(m)).await.unwrap();
        let mut got = poll(&request(&server, 3000)).await.unwrap();
        got.latency = Duration::ZERO;
        want.latency = Duration::ZERO;
        assert_eq!(got, want, "{m:?}");
    }
}

/// Challenge 0: the request goes without challenge bytes, and the next poll sends it first,
/// with no handshake at all.
#[tokio::test]
async fn challenge_zero_is_remembered() {
    let server = spawn(world(2), mis(Misbehaviour::ChallengeZero))
        .await
        .unwrap();
    let req = request(&server, 3000);
    let mut session = Session::default();
    let (s, sent) = observed(&req, &mut session).await;
    assert_eq!(s.unwrap().online, 2);
    assert_eq!(
        sent,
        [
            "GameSpy3 handshake",
            "GameSpy3 request (no handshake needed)"
        ]
    );
    assert!(session.memory.get::<Gs3Memory>().challengeless);
    let (s, sent) = observed(&req, &mut session).await;
    assert_eq!(s.unwrap().name, "Sim BF2");
    assert_eq!(sent, ["GameSpy3 request (no handshake needed)"]);
}

/// No answer to the handshake (Battlefield 2): the challenge-less request after a third of
/// the budget; the next poll starts with it.
#[tokio::test]
async fn no_handshake_is_remembered() {
    let server = spawn(world(2), mis(Misbehaviour::NoHandshake))
        .await
        .unwrap();
    let req = request(&server, 900);
    let mut session = Session::default();
    let (s, sent) = observed(&req, &mut session).await;
    assert_eq!(s.unwrap().name, "Sim BF2");
    assert_eq!(
        sent,
        [
            "GameSpy3 handshake",
            "GameSpy3 request (no handshake needed)"
        ]
    );
    let (s, sent) = observed(&req, &mut session).await;
    assert_eq!(s.unwrap().online, 2);
    assert_eq!(sent, ["GameSpy3 request (no handshake needed)"]);
}

/// A server that wants a challenge after all (remembered wrong): the unanswered
/// challenge-less request falls back to the handshake within the same poll.
#[tokio::test]
async fn stale_memory_falls_back_to_the_handshake() {
    let server = spawn(world(2), mis(Misbehaviour::None)).await.unwrap();
    let req = request(&server, 1500);
    let mut session = Session::default();
    session.memory.get::<Gs3Memory>().challengeless = true;
    let (s, sent) = observed(&req, &mut session).await;
    assert_eq!(s.unwrap().online, 2);
    assert_eq!(
        sent,
        [
            "GameSpy3 request (no handshake needed)",
            "GameSpy3 handshake",
            "GameSpy3 request with the challenge"
        ]
    );
    assert!(!session.memory.get::<Gs3Memory>().challengeless);
}

/// Counts are reported as the server says them.
#[tokio::test]
async fn lying_counts_are_reported() {
    let server = spawn(world(2), mis(Misbehaviour::LyingCounts))
        .await
        .unwrap();
    let s = poll_with(&request(&server, 3000), &mut Session::default())
        .await
        .unwrap();
    assert_eq!((s.online, s.max), (1000, 1));
}

/// Every hostile server ends in its reason before the deadline.
#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    let cases = [
        (Misbehaviour::Silence, 2, Reason::Timeout),
        (Misbehaviour::MissingPart, 40, Reason::Incomplete),
        (Misbehaviour::Oversized, 40, Reason::TooLarge),
        (Misbehaviour::Garbage, 2, Reason::Malformed),
        (Misbehaviour::Truncated, 2, Reason::Malformed),
        (Misbehaviour::EndlessChallenges, 2, Reason::Challenge),
    ];
    for (m, players, reason) in cases {
        let server = spawn(world(players), mis(m)).await.unwrap();
        let (got, sent) = observed(&request(&server, 600), &mut Session::default()).await;
        assert_eq!(got.map(|s| s.name), Err(reason), "{m:?}");
        if m == Misbehaviour::EndlessChallenges {
            // The handshake, then one request per challenge allowed (Limits::max_challenges).
            assert_eq!(sent.len(), 1 + 3, "{sent:?}");
        }
    }
}
