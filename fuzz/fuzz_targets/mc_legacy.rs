//! Legacy (pre-1.7) ping and kick decoders on arbitrary bytes: no panic, consumed never
//! exceeds what arrived, partial stays partial on shorter prefixes, and parsed kick text
//! survives a re-encode.
#![no_main]

use gameserver_exporter::protocol::minecraft::legacy;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(Some((status, used))) = legacy::decode_kick(data) {
        assert!(used <= data.len());
        assert_eq!(used % 2, 1);
        assert!(!matches!(
            legacy::decode_kick(&data[..used - 1]),
            Ok(Some(_))
        ));
        let _ = status;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(status) = legacy::parse_kick_text(text) {
            let again = legacy::encode_kick_text(&status);
            let reparsed = legacy::parse_kick_text(&again);
            // Numbers are normalized ("007" -> 7), text is kept as sent.
            assert_eq!(reparsed.as_ref(), Ok(&status), "kick text {again:?}");
            let mut out = Vec::new();
            legacy::encode_kick(&again, &mut out);
            let decoded = legacy::decode_kick(&out);
            if again.encode_utf16().count() <= usize::from(u16::MAX) {
                assert_eq!(decoded, Ok(Some((status, out.len()))));
            }
        }
    }
    match legacy::decode_ping(data) {
        Ok(Some((variant, host))) => {
            assert_eq!(host.is_some(), variant == legacy::Variant::V16);
        }
        Ok(None) => {
            // Partial: every prefix is partial too, except the complete older pings that the
            // newer ones extend (`FE`, `FE 01`): the wire format itself is ambiguous there.
            if let Some(shorter) = data.len().checked_sub(1) {
                let prefix = &data[..shorter];
                if !matches!(prefix, [0xfe] | [0xfe, 0x01]) {
                    assert!(!matches!(legacy::decode_ping(prefix), Ok(Some(_))));
                }
            }
        }
        Err(_) => {}
    }
});
