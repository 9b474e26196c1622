//! Small parts every exchange shares: splitting the time left, noting a best-effort step's
//! failure, bounding challenges, drawing match keys.

use std::time::Instant;

use serde_json::{Map, Value};

use super::error::Error;

/// The deadline for the next of `left` steps that share the time until `deadline` evenly:
/// every dialogue splits its remaining time this one way, so a server that ignores one step
/// cannot starve the next, and answered steps leave more for the rest.
pub fn share(now: Instant, deadline: Instant, left: usize) -> Instant {
    let remaining = deadline.saturating_duration_since(now);
    (now + remaining / (left.max(1) as u32)).min(deadline)
}

/// Records in a status's extras why a best-effort step failed: the failure reason (a label
/// from the closed set), so extras stay as predictable as the metrics. Detail goes to the log.
pub fn note(extras: &mut Map<String, Value>, key: &str, e: &Error) {
    super::debug!(step = key, error = %e, "best-effort step failed");
    extras.insert(key.into(), Value::String(e.reason().as_str().into()));
}

/// Counts the challenges a server issues in a row and fails the exchange past the bound.
#[derive(Debug, Clone, Copy)]
pub struct Challenges {
    seen: u8,
    limit: u8,
}

impl Challenges {
    pub fn new(limit: u8) -> Challenges {
        Challenges { seen: 0, limit }
    }

    /// Challenges seen so far.
    pub fn seen(&self) -> u8 {
        self.seen
    }

    /// One more challenge came: fine while within the bound, `challenge` past it.
    pub fn another(&mut self) -> Result<(), Error> {
        self.seen = self.seen.saturating_add(1);
        if self.seen > self.limit {
            return Err(Error::Challenge { limit: self.limit });
        }
        Ok(())
    }
}

/// Unpredictable enough for a ping payload or a session id; not for secrets.
pub fn random_u32() -> u32 {
    random_u64() as u32
}

/// 64 unpredictable bits from one clock read and one hash: half the cost of two
/// [`random_u32`] calls (a Minecraft ping payload each poll); not for secrets.
pub fn random_u64() -> u64 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::collections::hash_map::RandomState::new().hash_one(nanos)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Shares split what is left evenly, never past the deadline, and zero steps count as one.
    #[test]
    fn shares() {
        let now = Instant::now();
        let deadline = now + Duration::from_secs(3);
        assert_eq!(share(now, deadline, 3), now + Duration::from_secs(1));
        assert_eq!(share(now, deadline, 1), deadline);
        assert_eq!(share(now, deadline, 0), deadline);
        assert_eq!(
            share(deadline + Duration::from_secs(1), deadline, 2),
            deadline
        );
    }

    /// The bound allows exactly `limit` challenges in a row.
    #[test]
    fn challenge_bound() {
        let mut c = Challenges::new(2);
        assert!(c.another().is_ok());
        assert!(c.another().is_ok());
        assert!(matches!(c.another(), Err(Error::Challenge { limit: 2 })));
    }
}
