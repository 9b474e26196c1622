//! Ventrilo's status query against the simulator on 127.0.0.1, through the exporter's own
//! poll: the fields, a reply in many parts, every misbehaviour's reason, and the parts a
//! real-sized reply comes in.

use gameserver_exporter::protocol::ventrilo::obfuscation::Key;
use gameserver_exporter::protocol::ventrilo::packet::{decode_packet, encode_request, Keys};
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::ventrilo::{spawn, Misbehaviour, VentriloConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;
use tokio::net::UdpSocket;

use crate::support::patience;

fn world() -> World {
    World::new(WorldState {
        name: "Raid, Night".into(),
        version: "3.0.3".into(),
        max: 8,
        bots: 1,
        players: vec![
            ("alice".into(), 3, 600.0),
            ("bob".into(), 1, 9.0),
            ("carol".into(), 0, 1.0),
        ],
        ..WorldState::default()
    })
}

fn request(server: &SimServer, want: Reason) -> Request {
    let mut req = Request::new(
        Protocol::Ventrilo,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::timeout_for_parts(want);
    req
}

async fn server(misbehaviour: Misbehaviour, part_len: usize) -> SimServer {
    spawn(
        world(),
        VentriloConfig {
            misbehaviour,
            part_len,
        },
    )
    .await
    .unwrap()
}

/// Counts, name (its comma escaped on the wire), version, clients with ping and time, the
/// channel count; the same from a reply in 40-byte parts.
#[tokio::test]
async fn fields() {
    for part_len in [492, 40] {
        let s = server(Misbehaviour::None, part_len).await;
        let mut req = request(&s, Reason::Malformed);
        req.detail = true;
        req.players = true;
        let st = poll(&req).await.unwrap();
        assert_eq!(st.name, "Raid, Night");
        assert_eq!((st.online, st.max), (3, 8));
        assert_eq!(st.bots, None);
        assert_eq!(st.version.as_deref(), Some("3.0.3"));
        assert_eq!(st.password, Some(false));
        let players = st.players.unwrap();
        let got: Vec<_> = players
            .iter()
            .map(|p| (p.name.as_str(), p.ping, p.duration))
            .collect();
        assert_eq!(
            got,
            [
                ("alice", Some(20), Some(600.0)),
                ("bob", Some(30), Some(9.0)),
                ("carol", Some(40), Some(1.0))
            ]
        );
        assert_eq!(st.extras["channels"], json!(2));
        assert_eq!(st.extras["platform"], json!("Linux-i386"));
    }
}

/// A real-sized reply (three clients, two channels) is more than one 492-byte part; every
/// part echoes the request's id, numbered from 0 of the same total.
#[tokio::test]
async fn reply_in_parts() {
    let s = server(Misbehaviour::None, 492).await;
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let mut req = Vec::new();
    let keys = Keys {
        header: Key::new(200, 17),
        data: Key::new(3, 255),
    };
    encode_request(2, 0xBEEF, keys, &mut req);
    sock.send_to(&req, s.addr).await.unwrap();
    let mut buf = vec![0u8; 2048];
    let mut numbers = Vec::new();
    let mut total = None;
    loop {
        let (n, _) = tokio::time::timeout(patience::ANSWERED, sock.recv_from(&mut buf))
            .await
            .expect("a part")
            .unwrap();
        let (h, data) = decode_packet(&buf[..n]).unwrap();
        assert_eq!((h.id, h.cmd, usize::from(h.len)), (0xBEEF, 3, data.len()));
        total.get_or_insert(h.total_parts);
        assert_eq!(Some(h.total_parts), total);
        numbers.push(h.part);
        if numbers.len() == usize::from(h.total_parts) {
            break;
        }
    }
    assert_eq!(numbers, [0, 1]);
}

/// Every misbehaviour ends in its reason; reordered, repeated parts still make a reply.
#[tokio::test]
async fn misbehaviours() {
    use Misbehaviour as M;
    let s = server(M::Reordered, 100).await;
    let st = poll(&request(&s, Reason::Malformed)).await.unwrap();
    assert_eq!((st.online, st.max), (3, 8));
    for (m, reason) in [
        (M::Silence, Reason::Timeout),
        (M::WrongId, Reason::Mismatch),
        (M::LyingLength, Reason::Malformed),
        (M::LyingTotal, Reason::Malformed),
        (M::Endless, Reason::Incomplete),
        (M::BeyondTotal, Reason::Malformed),
        (M::Conflicting, Reason::Malformed),
        (M::TooManyParts, Reason::TooLarge),
        (M::Oversized, Reason::TooLarge),
        (M::BadChecksum, Reason::Malformed),
        (M::ErrorReply, Reason::Malformed),
    ] {
        let s = server(m, 492).await;
        let e = poll(&request(&s, reason)).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}

/// A request the server cannot take (a wrong checksum, another command) goes unanswered, as
/// a real server leaves it: the poll of such a client would time out.
#[tokio::test]
async fn bad_requests_are_ignored() {
    let s = server(Misbehaviour::None, 492).await;
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let keys = Keys {
        header: Key::new(1, 1),
        data: Key::new(1, 1),
    };
    for cmd in [7u16, 2] {
        let mut req = Vec::new();
        encode_request(cmd, 1, keys, &mut req);
        if cmd == 2 {
            // The last data byte altered: the checksum no longer holds.
            *req.last_mut().unwrap() ^= 1;
        }
        sock.send_to(&req, s.addr).await.unwrap();
    }
    // Then a good one: its answer is the first datagram back.
    let mut req = Vec::new();
    encode_request(1, 2, keys, &mut req);
    sock.send_to(&req, s.addr).await.unwrap();
    let mut buf = vec![0u8; 2048];
    let (n, _) = tokio::time::timeout(patience::ANSWERED, sock.recv_from(&mut buf))
        .await
        .expect("an answer")
        .unwrap();
    let (h, _) = decode_packet(&buf[..n]).unwrap();
    assert_eq!(h.id, 2);
}
