//! The Teeworlds exchange driven by the real driver over the in-memory transport, under
//! tokio's paused clock, answered with the replies captured from the real servers.

use crate::protocol::teeworlds::exchange::Memory as TwMemory;
use std::time::Duration;

use tokio::time::Instant;

use serde_json::json;

use super::driver::drive;
use super::fake::{Answer, Fake};
use super::registry::pacing;
use super::{Error, Request, Session};
use crate::protocol::teeworlds::exchange::Teeworlds;
use crate::protocol::teeworlds::machine::Tokens;
use crate::protocol::teeworlds::{seven, six, Flavour};
use crate::status::{Reason, Status};
use crate::target::{Address, Protocol};

/// The tokens the captures were made with.
const TOKENS: Tokens = Tokens {
    six: 0x12342a,
    seven: 0x1122_3344,
    browse: 1000,
};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/teeworlds/{name}.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn request() -> Request {
    Request::new(Protocol::Teeworlds, Address::parse("127.0.0.1").unwrap())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Six,
    Token,
    SevenInfo,
}

fn kind(d: &[u8]) -> Kind {
    if six::decode_request(d).is_ok() {
        return Kind::Six;
    }
    match seven::decode_request(d) {
        Ok(seven::Request::Token { .. }) => Kind::Token,
        Ok(seven::Request::Info { .. }) => Kind::SevenInfo,
        Err(e) => panic!("not a Teeworlds request: {e}"),
    }
}

/// A real Teeworlds 0.7.5 server, as captured: ignores 0.6, answers the handshake and then
/// the info request.
fn tw07(_: usize, _: usize, d: &[u8]) -> Vec<Answer> {
    match kind(d) {
        Kind::Six => vec![],
        Kind::Token => vec![Answer::Bytes(fixture("tw07_token.0"))],
        Kind::SevenInfo => vec![Answer::Bytes(fixture("tw07_empty_info.0"))],
    }
}

async fn run(
    req: &Request,
    session: &mut Session,
    fake: &mut Fake<true>,
    budget: Duration,
) -> Result<Status, Error> {
    let deadline = Instant::now() + budget;
    let mut x = exchange(req, session, TOKENS, deadline);
    let result = drive(
        &mut x,
        fake,
        deadline,
        pacing(Protocol::Teeworlds.spec()),
        None,
    )
    .await;
    session.memory.get::<TwMemory>().flavour = x.flavour();
    result
}

/// The exchange as the registry builds it, with the given tokens.
fn exchange(req: &Request, session: &Session, tokens: Tokens, deadline: Instant) -> Teeworlds {
    let min_gap = Protocol::Teeworlds.spec().min_gap;
    let hint = session.memory.peek::<TwMemory>().and_then(|m| m.flavour);
    Teeworlds::new(req.params(), hint, tokens, min_gap, deadline.into_std())
}

/// DDNet answers the first request, the extended one, with its real `iext`: one datagram
/// out, the session learns the dialect.
#[tokio::test(start_paused = true)]
async fn ddnet_one_round_trip() {
    let req = request();
    let mut session = Session::default();
    let mut fake = Fake::<true>::new(|_, _, d| {
        assert_eq!(kind(d), Kind::Six);
        vec![Answer::Bytes(fixture("ddnet_two_ext.0"))]
    });
    let s = run(&req, &mut session, &mut fake, Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(s.name, "P3 DDNet");
    assert_eq!(s.map.as_deref(), Some("Tutorial"));
    assert_eq!((s.online, s.max), (2, 64));
    assert_eq!(s.players, None, "no list asked for");
    assert_eq!(fake.sent.len(), 1);
    assert_eq!(
        session.memory.get::<TwMemory>().flavour,
        Some(Flavour::Ddnet)
    );
}

/// A 0.7 server: found after the 500 ms fallback on the first poll; the next poll, told the
/// dialect by the session, starts with the handshake and sends no 0.6 request at all.
#[tokio::test(start_paused = true)]
async fn seven_found_then_remembered() {
    let mut req = request();
    req.detail = true;
    let mut session = Session::default();
    let mut fake = Fake::<true>::new(tw07);
    let started = Instant::now();
    let s = run(&req, &mut session, &mut fake, Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_millis(500));
    assert_eq!(s.name, "P3 Teeworlds 0.7");
    assert_eq!(s.extras["flavour"], json!("0.7"));
    assert_eq!(s.extras["complete"], json!(true));
    let kinds: Vec<Kind> = fake.sent.iter().map(|(_, d)| kind(d)).collect();
    assert_eq!(kinds, [Kind::Six, Kind::Token, Kind::SevenInfo]);
    assert_eq!(
        session.memory.get::<TwMemory>().flavour,
        Some(Flavour::Seven)
    );

    let mut fake = Fake::<true>::new(tw07);
    let started = Instant::now();
    run(&req, &mut session, &mut fake, Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::ZERO, "no fallback wait");
    let kinds: Vec<Kind> = fake.sent.iter().map(|(_, d)| kind(d)).collect();
    assert_eq!(kinds, [Kind::Token, Kind::SevenInfo]);
}

/// Silence: each request kind is resent by the machine (the driver's resends are off), never
/// two of a kind closer than the registry's minimum gap, and the poll times out.
#[tokio::test(start_paused = true)]
async fn silence_times_out_with_spaced_resends() {
    let req = request();
    let mut session = Session::default();
    let start = Instant::now();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = log.clone();
    let mut fake = Fake::<true>::new(move |_, _, d| {
        seen.lock().unwrap().push((kind(d), Instant::now() - start));
        vec![]
    });
    let err = run(&req, &mut session, &mut fake, Duration::from_millis(2500))
        .await
        .unwrap_err();
    assert_eq!(err.reason(), Reason::Timeout);
    let ms = |n| Duration::from_millis(n);
    assert_eq!(
        *log.lock().unwrap(),
        [
            (Kind::Six, ms(0)),
            (Kind::Token, ms(500)),
            (Kind::Six, ms(1000)),
            (Kind::Token, ms(1500)),
            (Kind::Six, ms(2000)),
        ]
    );
    assert!(Protocol::Teeworlds.spec().min_gap <= ms(1000));
    assert_eq!(session.memory.get::<TwMemory>().flavour, None);
}

/// Only datagrams answering something else (another token) came: `mismatch`.
#[tokio::test(start_paused = true)]
async fn foreign_only_is_mismatch() {
    let req = request();
    let session = Session::default();
    let other = Tokens {
        six: 0x00ab_cdef,
        ..TOKENS
    };
    let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Bytes(fixture("ddnet_two_ext.0"))]);
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut x = exchange(&req, &session, other, deadline);
    let err = drive(
        &mut x,
        &mut fake,
        deadline,
        pacing(Protocol::Teeworlds.spec()),
        None,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, Error::Unanswered { .. }), "{err:?}");
    assert_eq!(err.reason(), Reason::Mismatch);
}

/// The deadline comes while a DDNet list is arriving: with its first packet (the counts) the
/// poll succeeds with the clients that came, marked incomplete; with only a later packet it
/// fails as `incomplete`.
#[tokio::test(start_paused = true)]
async fn deadline_mid_list() {
    let mut req = request();
    req.detail = true;
    let mut session = Session::default();
    let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Bytes(fixture("ddnet_many_ext.0"))]);
    let s = run(&req, &mut session, &mut fake, Duration::from_millis(100))
        .await
        .unwrap();
    assert_eq!((s.online, s.max), (48, 64));
    assert_eq!(s.players.as_ref().map(Vec::len), Some(33));
    assert_eq!(s.extras["complete"], json!(false));

    let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Bytes(fixture("ddnet_many_ext.1"))]);
    let err = run(&req, &mut session, &mut fake, Duration::from_millis(100))
        .await
        .unwrap_err();
    assert_eq!(err.reason(), Reason::Incomplete);
}

/// A reply that is ours but broken fails at once; a transport error ends the poll with it.
#[tokio::test(start_paused = true)]
async fn broken_reply_and_transport_error() {
    let req = request();
    let mut session = Session::default();
    let mut cut = fixture("ddnet_two_ext.0");
    cut.truncate(cut.len() / 2);
    let mut fake = Fake::<true>::new(move |_, _, _| vec![Answer::Bytes(cut.clone())]);
    let started = Instant::now();
    let err = run(&req, &mut session, &mut fake, Duration::from_secs(2))
        .await
        .unwrap_err();
    assert_eq!(err.reason(), Reason::Malformed);
    assert_eq!(started.elapsed(), Duration::ZERO);

    let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Reset]);
    let err = run(&req, &mut session, &mut fake, Duration::from_secs(2))
        .await
        .unwrap_err();
    assert_eq!(err.reason(), Reason::Network);
}
