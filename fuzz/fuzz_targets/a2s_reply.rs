//! Every A2S reply decoder on arbitrary bytes: no panic, `decode_reply` agrees with the decoder
//! its type byte picks, decoded counts fit in what arrived, and whatever decodes survives a
//! re-encode unchanged.
#![no_main]

use gameserver_exporter::protocol::a2s::{self, Reply};
use libfuzzer_sys::fuzz_target;

/// Header and type byte.
const HEAD: usize = 5;

fuzz_target!(|data: &[u8]| {
    let info = a2s::decode_info(data);
    let players = a2s::decode_players(data);
    let rules = a2s::decode_rules(data);
    let challenge = a2s::decode_challenge(data);
    let ping = a2s::decode_ping(data);

    if let Ok(info) = &info {
        let text = info.name.len() + info.map.len() + info.folder.len() + info.game.len();
        // Lossy UTF-8 may turn one byte into three, never one char into more than one.
        let chars = [&info.name, &info.map, &info.folder, &info.game]
            .iter()
            .map(|s| s.chars().count())
            .sum::<usize>();
        assert!(
            chars + 4 <= data.len(),
            "info strings longer than the datagram"
        );
        let mut out = Vec::new();
        a2s::encode_info(info, &mut out);
        let again = a2s::decode_info(&out).expect("re-encoded info decodes");
        assert_eq!(
            &again, info,
            "info changed through encode/decode (text {text})"
        );
    }
    if let Ok(players) = &players {
        assert!(
            HEAD + 1 + players.len() * 10 <= data.len(),
            "more players than bytes"
        );
        let mut out = Vec::new();
        a2s::encode_players(players, &mut out);
        let again = a2s::decode_players(&out).expect("re-encoded players decode");
        // Debug text compares, because a duration may be NaN.
        assert_eq!(format!("{again:?}"), format!("{players:?}"));
    }
    if let Ok(rules) = &rules {
        assert!(
            HEAD + 2 + rules.len() * 2 <= data.len(),
            "more rules than bytes"
        );
        let mut out = Vec::new();
        a2s::encode_rules(rules, &mut out);
        assert_eq!(a2s::decode_rules(&out).as_ref(), Ok(rules));
    }
    if let Ok(c) = challenge {
        assert_eq!(&data[HEAD..HEAD + 4], &c);
    }
    if let Ok(p) = &ping {
        assert!(p.chars().count() + HEAD < data.len());
    }

    let Ok(reply) = a2s::decode_reply(data) else {
        return;
    };
    let agrees = match &reply {
        Reply::Info(i) => info.as_ref().ok() == Some(i),
        Reply::Challenge(c) => challenge.ok() == Some(*c),
        Reply::Players(p) => format!("{:?}", players.ok()) == format!("{:?}", Some(p)),
        Reply::Rules(r) => rules.ok().as_ref() == Some(r),
        Reply::Ping(s) => ping.ok().as_ref() == Some(s),
    };
    assert!(
        agrees,
        "decode_reply disagrees with its specific decoder: {reply:?}"
    );
});
