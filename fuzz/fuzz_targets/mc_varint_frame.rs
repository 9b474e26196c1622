//! VarInts and VarInt frames on arbitrary bytes, the way a TCP reader would feed them: no
//! panic, consumed never exceeds what arrived, a frame never exceeds its cap, a partial result
//! stays partial on every shorter prefix, and decoded values re-encode to the same frame.
#![no_main]

use gameserver_exporter::protocol::minecraft::{slp, varint};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cap, data)) = data.split_first() else {
        return;
    };
    let max_len = usize::from(cap) * 4;

    if let Ok(Some((value, used))) = varint::decode_varint(data) {
        assert!(used >= 1 && used <= varint::MAX_VARINT_LEN && used <= data.len());
        // Prefixes of a complete VarInt are partial.
        assert_eq!(varint::decode_varint(&data[..used - 1]), Ok(None));
        let mut out = Vec::new();
        varint::encode_varint(value, &mut out);
        assert!(out.len() <= used);
        assert_eq!(varint::decode_varint(&out), Ok(Some((value, out.len()))));
    }

    // A stream of frames, as read_frame would consume them.
    let mut rest = data;
    while let Ok(Some((frame, used))) = varint::decode_frame(rest, max_len) {
        assert!(used <= rest.len(), "consumed {used} of {}", rest.len());
        assert!(used > frame.body.len());
        assert!(used - 1 - frame.body.len() <= 2 * varint::MAX_VARINT_LEN);
        let prefix = &rest[..used];
        if let Some(shorter) = prefix.len().checked_sub(1) {
            assert!(!matches!(
                varint::decode_frame(&prefix[..shorter], max_len),
                Ok(Some(_))
            ));
        }
        let _ = slp::decode_handshake(&frame);
        let _ = slp::decode_status_response(&frame);
        let _ = slp::decode_ping(&frame);
        let _ = slp::decode_pong(&frame, 0);
        rest = &rest[used..];
    }
    if let Ok(Some((_, used))) = slp::decode_reply_frame(data, max_len) {
        assert!(used <= data.len());
    }
});
