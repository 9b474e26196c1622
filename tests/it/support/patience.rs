//! How long a test lets one poll run. The machines tests run on are shared and busy (CI, a
//! contributor's other builds, `stress-ng` in the stress proof), so a poll's timeout must never
//! be what decides a test that expects an answer: only a case built never to finish may wait
//! out a short one.

use std::time::Duration;

use gameserver_exporter::status::Reason;

/// For a server that answers, whatever it answers (good data, a lie, 16 MB of padding): a
/// passing test returns as soon as the reply is read, so this only bounds a broken one.
pub const ANSWERED: Duration = Duration::from_secs(30);

/// For a server built never to finish (silent, dripping, endless): its outcome is `timeout`
/// however loaded the machine is, so a short wait keeps the suite fast.
pub const WAITED_OUT: Duration = Duration::from_millis(600);

/// For a server that answers only with replies that are not the answer (a wrong challenge,
/// someone else's datagrams): `mismatch` is decided when the wait runs out, after those
/// replies came. Long enough for them to arrive on a loaded machine, short enough to wait
/// out in every run.
pub const AFTER_WRONG_REPLIES: Duration = Duration::from_secs(3);

/// For a reply in parts of which some never come: `incomplete` is decided when the wait
/// runs out, after the parts that came, as `mismatch` is after wrong replies.
pub const AFTER_SOME_PARTS: Duration = AFTER_WRONG_REPLIES;

/// The timeout for a case that must end in `want` where that is known only at the deadline
/// when parts are missing ([`AFTER_SOME_PARTS`] for `incomplete`), else [`timeout_for`]'s.
pub fn timeout_for_parts(want: Reason) -> Duration {
    match want {
        Reason::Incomplete => AFTER_SOME_PARTS,
        _ => timeout_for(want),
    }
}

/// The timeout for a case that must end in `want`.
pub fn timeout_for(want: Reason) -> Duration {
    match want {
        Reason::Timeout => WAITED_OUT,
        Reason::Mismatch => AFTER_WRONG_REPLIES,
        _ => ANSWERED,
    }
}

/// The same, for tests that name reasons by their metric label.
pub fn timeout_for_label(want: &str) -> Duration {
    match Reason::ALL.iter().find(|r| r.as_str() == want) {
        Some(&r) => timeout_for(r),
        None => ANSWERED,
    }
}
