//! What the REST API suites (`palworld`, `terraria`) share: their simulators' common
//! misbehaviours (`simulate::http::ApiMisbehaviour`) and what a poll must end in for each.

use std::time::Duration;

use gameserver_exporter::query::Request;
use gameserver_exporter::simulate::http::ApiMisbehaviour as M;
use gameserver_exporter::status::Reason;

/// Every misbehaviour with the reason a poll made [`tight`] must fail with.
pub const MISBEHAVIOURS: [(M, Reason); 6] = [
    (M::BadJson, Reason::Malformed),
    (M::Huge, Reason::TooLarge),
    (M::Drip, Reason::Timeout),
    (M::WrongContentType, Reason::Malformed),
    (M::RateLimited, Reason::Refused),
    (M::Redirect, Reason::Malformed),
];

/// A poll the misbehaviours fail quickly: 800 ms (a dripped body cannot finish), 64 KiB (a
/// 2 MB body cannot fit).
pub fn tight(r: &mut Request) {
    r.timeout = Duration::from_millis(800);
    r.limits.max_reply_bytes = 64 * 1024;
}
