//! Armagetron Advanced packets on arbitrary bytes: splitting into messages never panics nor
//! reads past the packet, and every message's data goes through the `big_server` decoder
//! and the mapping to Status without a panic; no decoded count passes its cap.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::armagetron::{self, info::MAX_USERS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(messages) = armagetron::decode_messages(data) {
        for m in messages {
            assert!(m.data.len() <= data.len());
            if let Ok(i) = armagetron::decode_big_info(m.data) {
                assert!(i.users <= MAX_USERS && i.max_users <= MAX_USERS);
                assert!(i.user_names.len() <= MAX_USERS as usize);
                let _ = armagetron::to_status(&i, true, true, Duration::ZERO);
            }
        }
    }
    let _ = armagetron::decode_big_info(data);
});
