use proptest::prelude::*;

use super::*;

/// An FS22 feed in the shape the game's own writer gives it (attribute order, free slots as
/// empty `Player` elements, a player in a vehicle without coordinates, escaped names).
const FS22: &str = r#"<?xml version="1.0" encoding="utf-8" standalone="no" ?>
<Server game="Farming Simulator 22" version="1.14.0.0" name="Tom &amp; Jerry&apos;s farm" mapName="Elmcreek" dayTime="43215000" mapOverviewFilename="data/maps/mapUS/overview.png" mapSize="2048">
    <Slots capacity="4" numUsed="2">
        <Player isUsed="true" isAdmin="false" uptime="12" x="-101.5" y="90.25" z="33.75">Alice &lt;3</Player>
        <Player isUsed="true" isAdmin="true" uptime="3">Bob&#233;</Player>
        <Player isUsed="false"/>
        <Player isUsed="false"/>
    </Slots>
    <Vehicles>
        <Vehicle name="Fendt 942" category="tractorsL" type="tractor" x="1" y="2" z="3" controller="Bob"><Fill type="DIESEL" level="380"/></Vehicle>
    </Vehicles>
    <Mods>
        <Mod name="FS22_AutoDrive" author="Stephan" version="2.0.1.0" hash="abc">AutoDrive</Mod>
        <Mod name="FS22_Courseplay" author="CP Team" version="7.3.0.0">Courseplay</Mod>
    </Mods>
    <Farmlands><Farmland name="1" id="1" owner="1" area="2.5" x="0" z="0"/></Farmlands>
    <Fields/>
</Server>
"#;

/// Every field we read, one by one.
#[test]
fn fs22_feed_field_by_field() {
    let feed = decode_feed(FS22.as_bytes()).unwrap();
    assert_eq!(feed.game.as_deref(), Some("Farming Simulator 22"));
    assert_eq!(feed.version.as_deref(), Some("1.14.0.0"));
    assert_eq!(feed.name, "Tom & Jerry's farm");
    assert_eq!(feed.map.as_deref(), Some("Elmcreek"));
    assert_eq!(feed.map_size, Some(2048));
    assert_eq!(feed.day_time, Some(43_215_000));
    assert_eq!((feed.capacity, feed.used), (4, 2));
    assert_eq!(
        feed.players,
        [
            FsPlayer {
                name: "Alice <3".into(),
                admin: false,
                uptime_minutes: Some(12),
            },
            FsPlayer {
                name: "Bob\u{e9}".into(),
                admin: true,
                uptime_minutes: Some(3),
            },
        ]
    );
    assert_eq!(feed.mods, 2);
    let s = to_status(feed, Duration::ZERO, true, true);
    assert_eq!((s.online, s.max), (2, 4));
    assert_eq!(s.name, "Tom & Jerry's farm");
    assert_eq!(s.extras["admins"], 1);
    assert_eq!(s.extras["mods"], 2);
    assert_eq!(s.extras["map_size"], 2048);
    let players = s.players.unwrap();
    assert_eq!(players[0].duration, Some(720.0));
    assert_eq!(players[1].name, "Bob\u{e9}");
}

/// The players only when asked for; the list's length where it beats `numUsed`.
#[test]
fn players_on_request_and_counts() {
    let s = to_status(
        decode_feed(FS22.as_bytes()).unwrap(),
        Duration::ZERO,
        false,
        false,
    );
    assert_eq!(s.players, None);
    assert!(!s.extras.contains_key("map_size"));
    let short = FS22.replace("numUsed=\"2\"", "numUsed=\"1\"");
    let s = to_status(
        decode_feed(short.as_bytes()).unwrap(),
        Duration::ZERO,
        false,
        false,
    );
    assert_eq!(s.online, 2);
}

/// An HTML entity the game's escaping may write, a name split by a comment and CDATA, an
/// element inside a name, a used slot without a name.
#[test]
fn odd_but_well_formed_names() {
    let body = r#"<Server name="x &nbsp; y"><Slots capacity="3" numUsed="3">
        <Player isUsed="true">An<!-- c -->na<![CDATA[ & co]]><b>bold</b></Player>
        <Player isUsed="true" uptime="lots">M&auml;x</Player>
        <Player isUsed="true"/>
    </Slots></Server>"#;
    let feed = decode_feed(body.as_bytes()).unwrap();
    assert_eq!(feed.name, "x &nbsp; y");
    let names: Vec<&str> = feed.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Anna & co", "M&auml;x", ""]);
    assert_eq!(feed.players[1].uptime_minutes, None);
}

/// What is not the feed is malformed, each for its reason.
#[test]
fn not_the_feed() {
    for (body, why) in [
        (&b""[..], "feed without a closed Server element"),
        (
            b"<html><body>Login</body></html>",
            "feed without a closed Server element",
        ),
        (
            b"<Server name=\"a\"><Slots capacity=\"2\" numUsed=\"0\"/>",
            "feed without a closed Server element",
        ),
        (b"<Server name=\"a\"></Server>", "feed without Slots"),
        (
            b"<Server><Slots capacity=\"x\" numUsed=\"0\"/></Server>",
            "Slots capacity",
        ),
        (
            b"<Server><Slots capacity=\"2\" numUsed=\"-1\"/></Server>",
            "Slots numUsed",
        ),
        (b"<Server><Slots/></Slot></Server>", "feed XML"),
        (
            b"<Server><Slots/></Server><Server/>",
            "feed element after Server",
        ),
        (b"<Server name=\"\xff\"><Slots/></Server>", "feed not UTF-8"),
        (
            b"<Server name=\"a\" name=\"b\"><Slots/></Server>",
            "feed attribute",
        ),
    ] {
        assert_eq!(
            decode_feed(body),
            Err(DecodeError::Invalid(why)),
            "{body:?}"
        );
    }
    // Missing counts are zero (an empty server's feed can leave them out).
    let f = decode_feed(b"<Server><Slots/></Server>").unwrap();
    assert_eq!((f.capacity, f.used), (0, 0));
}

/// The simulator's writer, byte for byte at the lines that matter.
#[test]
fn encoder_shape() {
    let feed = Feed {
        game: Some("Farming Simulator 25".into()),
        version: Some("1.4.0.0".into()),
        name: "A<B".into(),
        map: Some("Riverbend Springs".into()),
        map_size: Some(2048),
        day_time: Some(1),
        capacity: 2,
        used: 1,
        players: vec![FsPlayer {
            name: "Ann".into(),
            admin: true,
            uptime_minutes: Some(5),
        }],
        mods: 1,
    };
    let mut out = String::new();
    encode_feed(&feed, &mut out);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        r#"<?xml version="1.0" encoding="utf-8" standalone="no" ?>"#
    );
    assert_eq!(
        lines[1],
        r#"<Server game="Farming Simulator 25" version="1.4.0.0" name="A&lt;B" mapName="Riverbend Springs" dayTime="1" mapOverviewFilename="data/maps/mapUS/overview.png" mapSize="2048">"#
    );
    assert_eq!(lines[2], r#"    <Slots capacity="2" numUsed="1">"#);
    assert_eq!(
        lines[3],
        r#"        <Player isUsed="true" isAdmin="true" uptime="5">Ann</Player>"#
    );
    assert_eq!(lines[4], r#"        <Player isUsed="false"/>"#);
    assert_eq!(decode_feed(out.as_bytes()).unwrap(), feed);
}

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 <>&'\"\u{e9}\u{4e16}]{0,12}".prop_map(|s| s.trim().to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes, and arbitrary bytes inside a feed, never panic the decoder.
    #[test]
    fn decoder_survives_noise(noise in proptest::collection::vec(any::<u8>(), 0..256), cut in 0usize..1024) {
        let _ = decode_feed(&noise);
        let mut framed = FS22.as_bytes().to_vec();
        let at = cut.min(framed.len());
        framed.splice(at..at, noise.iter().copied());
        let _ = decode_feed(&framed);
        let _ = decode_feed(&FS22.as_bytes()[..at]);
    }

    /// decode_feed(encode_feed(x)) == x.
    #[test]
    fn round_trip(
        server in name(), map in name(), capacity in 0u32..40, used in 0u32..40,
        players in proptest::collection::vec((name(), any::<bool>(), proptest::option::of(0u32..100_000)), 0..8),
        mods in 0u32..5, size in proptest::option::of(any::<u32>()), day in proptest::option::of(any::<u64>()),
    ) {
        let feed = Feed {
            game: Some("Farming Simulator 22".into()),
            version: Some("1.0.0.0".into()),
            name: server,
            map: Some(map),
            map_size: Some(size.unwrap_or(2048)),
            day_time: Some(day.unwrap_or(0)),
            capacity,
            used,
            players: players.into_iter().map(|(name, admin, uptime_minutes)| FsPlayer { name, admin, uptime_minutes }).collect(),
            mods,
        };
        let mut out = String::new();
        encode_feed(&feed, &mut out);
        prop_assert_eq!(decode_feed(out.as_bytes()).unwrap(), feed);
    }
}
