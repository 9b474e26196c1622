//! The key/value lookup every infostring-style family shares (Quake 3, Doom 3, GameSpy 1 and
//! 2): keys compared without case, as the engines compare their own variables
//! (`Info_ValueForKey`, cvars), and the first pair wins when a server repeats a key.

/// The value of `key` among `pairs`. Inline: it was each family's own method before, and
/// every poll of those families calls it a dozen times.
#[inline]
pub fn get<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

/// The value of the first of `keys` present among `pairs`.
#[inline]
pub fn first<'a>(pairs: &'a [(String, String)], keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| get(pairs, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs() -> Vec<(String, String)> {
        [("Hostname", "a"), ("hostname", "b"), ("MaxPlayers", "8")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .to_vec()
    }

    #[test]
    fn case_insensitive_first_wins() {
        assert_eq!(get(&pairs(), "HOSTNAME"), Some("a"));
        assert_eq!(get(&pairs(), "map"), None);
        assert_eq!(first(&pairs(), &["sv_maxclients", "maxplayers"]), Some("8"));
        assert_eq!(first(&pairs(), &["map", "mapname"]), None);
    }
}
