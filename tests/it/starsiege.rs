//! Starsiege's query (Tribes 1's with the `r` byte) against the simulator on 127.0.0.1: the
//! Starsiege body's fields, every misbehaviour's reason, and `/probe?module=starsiege`.

use gameserver_exporter::query::poll;
use gameserver_exporter::simulate::tribes1::Misbehaviour;
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Protocol;
use serde_json::json;

use crate::tribes1::{request, server};

#[tokio::test]
async fn fields() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(Protocol::Starsiege, &s, Reason::Malformed);
    req.detail = true;
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Broadside");
    assert_eq!(st.map.as_deref(), Some("Raindance"));
    assert_eq!((st.online, st.max), (2, 32));
    assert_eq!(st.game.as_deref(), Some("Starsiege"));
    assert_eq!(st.version.as_deref(), Some("1.004"));
    assert_eq!(st.password, Some(true));
    let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(st.extras["time_limit"], json!(30));
}

/// Every misbehaviour ends in its reason; the lying count is Starsiege's 32-bit one.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::LyingCount, Reason::Malformed),
        (Misbehaviour::LyingLength, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::WrongKey, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let e = poll(&request(Protocol::Starsiege, &s, reason))
            .await
            .unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
