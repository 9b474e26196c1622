//! The opt-in families of "who is online": configured rules, per-player series, the count of
//! players left out by the cap, and the player-time, join and leave counters.
//!
//! Everything is read from the entry at scrape time (the [`Roster`] built when the poll was
//! recorded), so a player who left, or a target whose list went unanswered, simply stops
//! appearing. Targets with `players` and `rules` off write nothing here but
//! `gameserver_player_seconds_total`.

use std::sync::Arc;

use super::encode::Encoder;
use super::families as F;
use super::labels;
use super::up;
use crate::state::roster::Roster;
use crate::state::Entry;

/// The roster of the last poll, when it was up and gave one.
fn fresh(e: &Entry) -> Option<&Roster> {
    up(e)?;
    let l = e.listing.as_deref()?;
    Some(&*l.roster).filter(|_| l.fresh)
}

/// `gameserver_rule_value` and `gameserver_rule_info`, configured names only (the state keeps
/// no others).
pub(super) fn rules(enc: &mut Encoder, entries: &[Arc<Entry>]) {
    let [rule_label] = F::RULE_LABELS;
    enc.family(&F::RULE_VALUE);
    for e in entries {
        for (name, v) in rules_of(e) {
            if let Some(n) = number(v) {
                enc.start(&F::RULE_VALUE, labels::of(&e.meta));
                enc.label(rule_label, name);
                enc.value_f64(n);
            }
        }
    }
    let [rule_label, value_label] = F::RULE_INFO_LABELS;
    enc.family(&F::RULE_INFO);
    for e in entries {
        for (name, v) in rules_of(e) {
            if number(v).is_none() {
                enc.start(&F::RULE_INFO, labels::of(&e.meta));
                enc.label(rule_label, name);
                enc.server_label(value_label, v);
                enc.value_u64(1);
            }
        }
    }
}

fn rules_of(e: &Entry) -> impl Iterator<Item = (&String, &String)> {
    let configured = !e.meta.target.rules.is_empty();
    up(e)
        .filter(|_| configured)
        .and_then(|s| s.rules())
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| (k, v))
}

/// A rule value that reads as a finite number (`1`, ` 0.5 `, `-3e2`); `inf`, `NaN` and text
/// are not.
fn number(v: &str) -> Option<f64> {
    v.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// The per-player gauges and `gameserver_player_series_dropped`. `gameserver_player_info`
/// names every published player, so lists of names only (Minecraft) still say who is online.
pub(super) fn per_player(enc: &mut Encoder, entries: &[Arc<Entry>]) {
    let [player_label] = F::PLAYER_LABELS;
    enc.family(&F::PLAYER_INFO);
    for e in entries {
        for p in fresh(e).map(|r| r.shown.as_slice()).unwrap_or_default() {
            enc.start(&F::PLAYER_INFO, labels::of(&e.meta));
            enc.label(player_label, &p.name);
            enc.value_u64(1);
        }
    }
    enc.family(&F::PLAYER_SCORE);
    for e in entries {
        for p in fresh(e).map(|r| r.shown.as_slice()).unwrap_or_default() {
            if let Some(score) = p.score {
                enc.start(&F::PLAYER_SCORE, labels::of(&e.meta));
                enc.label(player_label, &p.name);
                enc.value_f64(score as f64);
            }
        }
    }
    enc.family(&F::PLAYER_CONNECTED);
    for e in entries {
        for p in fresh(e).map(|r| r.shown.as_slice()).unwrap_or_default() {
            if let Some(secs) = p.connected_seconds {
                enc.start(&F::PLAYER_CONNECTED, labels::of(&e.meta));
                enc.label(player_label, &p.name);
                enc.value_f64(secs);
            }
        }
    }
    enc.family(&F::PLAYER_PING);
    for e in entries {
        for p in fresh(e).map(|r| r.shown.as_slice()).unwrap_or_default() {
            if let Some(secs) = p.ping_seconds {
                enc.start(&F::PLAYER_PING, labels::of(&e.meta));
                enc.label(player_label, &p.name);
                enc.value_f64(secs);
            }
        }
    }
    enc.family(&F::PLAYER_SERIES_DROPPED);
    for e in entries {
        if let Some(r) = fresh(e) {
            enc.sample_u64(&F::PLAYER_SERIES_DROPPED, labels::of(&e.meta), r.dropped);
        }
    }
}

/// Player-time for every polled target; joins and leaves for targets with `players` on.
pub(super) fn counters(enc: &mut Encoder, entries: &[Arc<Entry>]) {
    enc.family(&F::PLAYER_SECONDS);
    for e in entries.iter().filter(|e| e.last.is_some()) {
        enc.sample_f64(&F::PLAYER_SECONDS, labels::of(&e.meta), e.player_seconds);
    }
    let listed = |e: &&Arc<Entry>| e.last.is_some() && e.meta.target.players.is_some();
    enc.family(&F::PLAYER_JOINS);
    for e in entries.iter().filter(listed) {
        enc.sample_u64(
            &F::PLAYER_JOINS,
            labels::of(&e.meta),
            e.listing.as_ref().map_or(0, |l| l.joins),
        );
    }
    enc.family(&F::PLAYER_LEAVES);
    for e in entries.iter().filter(listed) {
        enc.sample_u64(
            &F::PLAYER_LEAVES,
            labels::of(&e.meta),
            e.listing.as_ref().map_or(0, |l| l.leaves),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    /// Numbers are finite floats, surrounding blanks allowed; the rest is text.
    #[test]
    fn numbers() {
        assert_eq!(number("1"), Some(1.0));
        assert_eq!(number(" 0.5 "), Some(0.5));
        assert_eq!(number("-3e2"), Some(-300.0));
        for text in ["", "inf", "NaN", "1e999", "0x10", "yes", "1,5"] {
            assert_eq!(number(text), None, "{text}");
        }
    }
}
