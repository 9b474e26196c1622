//! What the REST API suites (`palworld`, `terraria`) share: their simulators' common
//! misbehaviours (`simulate::http::ApiMisbehaviour`) and what a poll must end in for each.

use super::patience;
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

/// The poll settings for a case that must end in `want`: 64 KiB (a 2 MB body cannot fit),
/// and the timeout the reason needs ([`patience::timeout_for`]: a dripped body is waited out
/// briefly, every other case answers and may take its time on a loaded machine).
pub fn tight(want: Reason) -> impl FnOnce(&mut Request) {
    move |r| {
        r.timeout = patience::timeout_for(want);
        r.limits.max_reply_bytes = 64 * 1024;
    }
}
